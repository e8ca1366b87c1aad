type Child = Node | string | null | undefined | false;

/** Builds an element: attributes (a `data-*` test hook among them), listeners by `on<event>`, children. */
export function el(tag: string, attributes: Record<string, string | number | boolean | null | undefined | ((event: Event) => void)> = {},
    ...children: Child[]): HTMLElement {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
        if (value == null || value === false)
            continue;
        if (typeof value === "function")
            element.addEventListener(name.slice(2).toLowerCase(), value);
        else if (name === "className")
            element.className = String(value);
        else
            element.setAttribute(name, value === true ? "" : String(value));
    }
    append(element, children);
    return element;
}

export function append(parent: HTMLElement, children: Child[]): void {
    for (const child of children)
        if (child != null && child !== false)
            parent.append(child);
}

/** Replaces an element's children (text set through textContent: never parsed as HTML). */
export function replaceChildren(parent: HTMLElement, ...children: Child[]): void {
    parent.replaceChildren();
    append(parent, children);
}
