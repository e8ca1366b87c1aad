/** A file as the exclusion rules see it: its path (forward slashes; workspace-relative where it is in one) and size. */
export type CandidateFile = {path: string, bytes: number, scheme: string};

export type ExclusionRules = {exclude: readonly string[], maxFileBytes: number};

/** Documents that are no one's source file: the output panel, the settings editor's JSON, git's views, notebooks' outputs. */
const completedSchemes = new Set(["file", "untitled", "vscode-remote", "vscode-userdata"]);

/** Why a file gets no suggestions and sends no context, or null when it may: excluded by a glob, too big, not a file. */
export function exclusionOf(file: CandidateFile, rules: ExclusionRules): string | null {
    if (!completedSchemes.has(file.scheme))
        return `not a file (${file.scheme})`;
    if (file.bytes > rules.maxFileBytes)
        return `larger than ${Math.round(rules.maxFileBytes / 1024)} KiB`;
    const pattern = rules.exclude.find((glob) => matchesGlob(file.path, glob));
    return pattern == null ? null : `excluded by ${pattern}`;
}

/**
 * Whether `path` matches a glob as VS Code's `files.exclude` writes them: `**` any folders, `*` and `?` within one
 * name, `{a,b}` alternatives, `[abc]` classes. A pattern without `/` matches the file's name alone, as in `.gitignore`.
 */
export function matchesGlob(path: string, glob: string): boolean {
    const normalized = path.replaceAll("\\", "/");
    const subject = glob.includes("/") ? normalized : normalized.slice(normalized.lastIndexOf("/") + 1);
    return globRegExp(glob).test(subject);
}

const compiled = new Map<string, RegExp>();

function globRegExp(glob: string): RegExp {
    let regExp = compiled.get(glob);
    if (regExp == null) {
        // An absolute path matches a pattern written for workspace-relative ones: any folders may come first.
        regExp = new RegExp(`^(?:.*/)?${globSource(glob.replace(/^\.?\//, ""))}$`);
        compiled.set(glob, regExp);
    }
    return regExp;
}

function globSource(glob: string): string {
    let source = "";
    for (let index = 0; index < glob.length; index++) {
        const char = glob[index]!;
        if (char === "*" && glob[index + 1] === "*") {
            const slash = glob[index + 2] === "/";
            source += slash ? "(?:.*/)?" : ".*";
            index += slash ? 2 : 1;
        } else if (char === "*")
            source += "[^/]*";
        else if (char === "?")
            source += "[^/]";
        else if (char === "{") {
            const close = glob.indexOf("}", index);
            if (close < 0) {
                source += "\\{";
                continue;
            }
            source += `(?:${glob.slice(index + 1, close).split(",").map(globSource).join("|")})`;
            index = close;
        } else if (char === "[") {
            const close = glob.indexOf("]", index);
            if (close < 0) {
                source += "\\[";
                continue;
            }
            source += `[${glob.slice(index + 1, close).replace(/^!/, "^").replaceAll("\\", "\\\\")}]`;
            index = close;
        } else
            source += char.replace(/[.+^$()|\\]/g, "\\$&");
    }
    return source;
}
