/**
 * node-llama-cpp's GPU builds that `local-responses gpu install` fetches: the version node-llama-cpp is pinned at
 * (a build of another version is one it refuses to load) and each tarball's integrity, copied from package-lock.json
 * so that the packed CLI and the VSIX, which carry no lockfile, check the same bytes `npm ci` would.
 * test/engine/models/gpuBuilds/gpuBuildPins.test.ts holds these to the lockfile.
 */
export const gpuBuildVersion = "3.21.1";

export const gpuBuildIntegrity: Readonly<Record<string, string>> = {
    "@node-llama-cpp/linux-x64-cuda": "sha512-idsE55VoD/FbvLhnBC9krUJaUoC0XnebseAAnCpm/brKf61HEbu+idgbb5eN6mxkjLSrHtILprJ0nDcUJjVrFg==",
    "@node-llama-cpp/linux-x64-cuda-ext": "sha512-1PuURowccBcks3CCoMe1mTHh5vD0V5bFHMUEgtbI/OSDjpP+Pdbn+lf42CGUrepTzR8kCH1HovQ7d8q6/vuIKA==",
    "@node-llama-cpp/linux-x64-vulkan": "sha512-flEeSzONQ6OIm5bYKLQf4eEnBzcC5WugFbyPUwkCqyyOFZ8pH0H9ulQ7ZNDLSIczeKneMRJornlyY1Hq7d3GDA==",
    "@node-llama-cpp/win-x64-cuda": "sha512-PLz70neFEMkQTlmJqG1ujUtCSgHasLPMxQ9rLkqQVmZYAXqkRj+45TIHCjdn3XqUeaoun0vrO9rRaxZ8NVq9jg==",
    "@node-llama-cpp/win-x64-cuda-ext": "sha512-L2MxLVEYPDDe4O8EDWPmX6brldc9+Vt9hNoT/anj3pSnmrjkQcmaoKhHs6oP5qhEhb5Uog0rj6lgzNGtJO3p9Q==",
    "@node-llama-cpp/win-x64-vulkan": "sha512-HJ237Azh5m4Sz+w3A1IU/fYLaSDOocskcfn2ILTgqTuuORCB86EMnu3Yt/XsNhRHTtEiwz1Q/E0mO4PLIbZLAA=="
};

/** The npm registry the tarballs come from unless told otherwise (`--registry`). */
export const defaultRegistry = "https://registry.npmjs.org";

/** A package's tarball in a registry, as npm names it: `<registry>/@scope/name/-/name-<version>.tgz`. */
export function registryTarballUrl(registry: string, packageName: string): string {
    const bareName = packageName.split("/").pop()!;
    return `${registry.replace(/\/+$/, "")}/${packageName}/-/${bareName}-${gpuBuildVersion}.tgz`;
}
