import {editorSettings, settingsSection} from "./settingsTable.js";

/**
 * What package.json declares about the editor's settings, derived from the settings table: `contributes.configuration
 * .properties` and `capabilities.untrustedWorkspaces.restrictedConfigurations`, both in the settings editor's order.
 * `npm run docs:flags` writes them; test/host/settingsManifest.test.ts fails when package.json drifts from them.
 */
export function settingsManifest(): {properties: Record<string, object>, restrictedConfigurations: string[]} {
    const ordered = [...editorSettings].sort((a, b) => a.setting.editor.order - b.setting.editor.order);
    const properties = Object.fromEntries(ordered.map(({setting: {kind, editor}}) => {
        const {type, items, enum: values, minimum, maximum} = kind.schema;
        const property = {
            type,
            items: editor.items ?? items,
            enum: values,
            enumDescriptions: editor.enumDescriptions,
            default: kind.toJson(editor.default),
            minimum,
            maximum,
            scope: editor.scope,
            order: editor.order,
            [editor.markdown ? "markdownDescription" : "description"]: editor.description
        };
        // Absent fields are left out, as JSON.stringify does with undefined.
        const present = Object.entries(property).filter(([, value]) => value !== undefined);
        return [`${settingsSection}.${editor.key}`, Object.fromEntries(present)];
    }));
    const restrictedConfigurations = ordered.filter(({setting}) => setting.editor.restricted)
        .map(({setting}) => `${settingsSection}.${setting.editor.key}`);
    return {properties, restrictedConfigurations};
}
