/**
 * Just enough of the DOM for the inspector's view functions to build their markup in Node (no browser, no
 * jsdom here): elements with attributes, children, text and listeners. The accessibility test reads the tree.
 */
export class MiniElement {
    public readonly attributes = new Map<string, string>();
    public readonly children: (MiniElement | string)[] = [];
    public readonly listeners = new Map<string, unknown[]>();

    public constructor(public readonly tagName: string) {}

    public set className(value: string) {
        this.attributes.set("class", value);
    }

    public get className(): string {
        return this.attributes.get("class") ?? "";
    }

    public setAttribute(name: string, value: string): void {
        this.attributes.set(name, value);
    }

    public getAttribute(name: string): string | null {
        return this.attributes.get(name) ?? null;
    }

    public addEventListener(type: string, listener: unknown): void {
        this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    }

    public append(...nodes: (MiniElement | string)[]): void {
        this.children.push(...nodes);
    }

    public replaceChildren(...nodes: (MiniElement | string)[]): void {
        this.children.length = 0;
        this.children.push(...nodes);
    }

    public set textContent(value: string) {
        this.replaceChildren(value);
    }

    public get textContent(): string {
        return this.children.map((child) => typeof child === "string" ? child : child.textContent).join("");
    }

    /** Every element below (and including) this one. */
    public *walk(): Generator<MiniElement> {
        yield this;
        for (const child of this.children)
            if (typeof child !== "string")
                yield* child.walk();
    }
}

/** Installs the mini DOM as the global `document` for the duration of `build`. */
export function withMiniDom<T>(build: () => T): T {
    const global = globalThis as {document?: unknown};
    const previous = global.document;
    global.document = {createElement: (tag: string) => new MiniElement(tag)};
    try {
        return build();
    } finally {
        global.document = previous;
    }
}
