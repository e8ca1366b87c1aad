import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {missingLibrariesLine, missingSharedLibraries} from "../../../../src/engine/models/gpuBuilds/missingLibraries.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-missing-libs-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

test("a build lacks libraries only when every one of its packages does; the line names the main one, then the fallback", () => {
    assert.equal(missingLibrariesLine("cuda", [["libcublas.so.13"], []]), null);
    assert.equal(missingLibrariesLine("vulkan", [[]]), null);
    assert.equal(missingLibrariesLine("cuda", [["libcublas.so.13", "libcuda.so.1"], ["libcudart.so.12"]]),
        "the cuda build needs libcublas.so.13, libcuda.so.1 (or, for its fallback build, libcudart.so.12), which this system does "
        + "not have: install the NVIDIA driver (libcuda.so.1) and the CUDA runtime's cudart and cuBLAS (13, or 12 for the fallback).");
    assert.match(missingLibrariesLine("vulkan", [["libvulkan.so.1"]])!, /needs libvulkan\.so\.1, .*libvulkan1 and mesa-vulkan-drivers/);
});

const cc = ["/usr/bin/cc", "/usr/bin/gcc"].find((file) => fs.existsSync(file));

test("ldd's 'not found' libraries of a package's binaries, less those the build carries itself", {
    skip: process.platform !== "linux" || cc == null ? "needs Linux and a C compiler to build a binary with a missing library" : false
}, async () => {
    // A library that exists only while linking, then a binary needing it and one that nothing provides.
    const build = path.join(root, "build");
    fs.mkdirSync(build);
    fs.writeFileSync(path.join(build, "a.c"), "int fromCarried(void) { return 1; }\n");
    fs.writeFileSync(path.join(build, "b.c"), "int fromAbsent(void) { return 2; }\n");
    fs.writeFileSync(path.join(build, "main.c"), "int fromCarried(void); int fromAbsent(void);\n"
        + "int addon(void) { return fromCarried() + fromAbsent(); }\n");
    const bins = path.join(root, "package", "bins", "x");
    fs.mkdirSync(bins, {recursive: true});
    execFileSync(cc!, ["-shared", "-fPIC", "-o", path.join(bins, "libcarried.so"), path.join(build, "a.c")]);
    execFileSync(cc!, ["-shared", "-fPIC", "-o", path.join(build, "libabsent-lr-test.so"), path.join(build, "b.c")]);
    execFileSync(cc!, ["-shared", "-fPIC", "-o", path.join(bins, "llama-addon.node"), path.join(build, "main.c"),
        `-L${bins}`, `-L${build}`, "-lcarried", "-labsent-lr-test"]);
    assert.deepEqual(await missingSharedLibraries(path.join(root, "package")), ["libabsent-lr-test.so"]);
    assert.deepEqual(await missingSharedLibraries(path.join(root, "package"), [], "win32"), []);
});
