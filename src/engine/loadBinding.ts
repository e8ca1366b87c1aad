/**
 * node-llama-cpp is ESM-only with top-level await: the CommonJS bundles (extension, CLI) must reach it
 * through a real dynamic `import()`, which esbuild keeps as is when the package is external.
 */
export type NodeLlamaCpp = typeof import("node-llama-cpp");

let binding: Promise<NodeLlamaCpp> | undefined;

export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
    binding ??= import("node-llama-cpp");
    return binding;
}
