import {el} from "../dom.js";
import {tags} from "./tags.js";

/** Our own components over the toolkit's elements: the rest of the page never names a toolkit tag. */

export function button(label: string, onClick: () => void,
    options: {appearance?: "primary" | "secondary" | "icon", title?: string, testId?: string, disabled?: boolean} = {}): HTMLElement {
    return el(tags.button, {
        appearance: options.appearance ?? "secondary",
        title: options.title ?? null,
        "aria-label": options.title ?? null,
        "data-testid": options.testId ?? null,
        disabled: options.disabled === true,
        onclick: (event: Event) => {
            event.stopPropagation();
            onClick();
        }
    }, label);
}

/** A field whose value the page can read and set (a text field, a dropdown). */
export type ValueField = HTMLElement & {value: string};

/** A text field; `label` is its accessible name (a placeholder is not one). */
export function textField(options: {label: string, placeholder: string, value: string, onInput: (value: string) => void,
    testId?: string}): ValueField {
    const field = el(tags.textField,
        {placeholder: options.placeholder, "aria-label": options.label, "data-testid": options.testId ?? null}) as ValueField;
    field.value = options.value;
    field.addEventListener("input", () => options.onInput(field.value));
    return field;
}

export function dropdown(options: {label: string, choices: {value: string, label: string}[], value: string,
    onChange: (value: string) => void, testId?: string}): ValueField {
    const select = el(tags.dropdown, {"aria-label": options.label, "data-testid": options.testId ?? null},
        ...options.choices.map((choice) => el(tags.option, {value: choice.value, selected: choice.value === options.value},
            choice.label))) as ValueField;
    select.addEventListener("change", () => options.onChange(select.value));
    return select;
}

export function badge(text: string | number): HTMLElement {
    return el(tags.badge, {}, String(text));
}

export function divider(): HTMLElement {
    return el(tags.divider, {role: "separator"});
}

export function spinner(): HTMLElement {
    return el(tags.progressRing, {});
}

export type Tab = {id: string, label: string, count?: number, content: HTMLElement};

/** Tabs; `onChange` hears the id of the tab a person picks. */
export function tabs(list: Tab[], active: string, onChange: (id: string) => void): HTMLElement {
    const panels = el(tags.panels, {activeid: `tab-${active}`, "aria-label": "Inspector sections"},
        ...list.map(
            (tab) => el(tags.panelTab, {id: `tab-${tab.id}`, "data-testid": `tab-${tab.id}`}, tab.label,
                tab.count != null ? badge(tab.count) : null)
        ),
        ...list.map((tab) => el(tags.panelView, {id: `view-${tab.id}`}, tab.content)));
    panels.addEventListener("change", (event) => {
        const activeTab = (event.target as HTMLElement & {activetab?: HTMLElement}).activetab;
        if (event.target === panels && activeTab?.id != null)
            onChange(activeTab.id.replace(/^tab-/, ""));
    });
    return panels;
}

/** Updates a tab's count badge in place (re-rendering the tabs would lose focus and scroll). */
export function setTabCount(panels: HTMLElement, id: string, count: number): void {
    const tab = panels.querySelector(`#tab-${id}`);
    const existing = tab?.querySelector(tags.badge);
    if (existing != null)
        existing.textContent = String(count);
}
