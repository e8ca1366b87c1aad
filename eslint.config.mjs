// The project's linter (`npm run lint`). Layout rules in the spirit of node-llama-cpp's own eslint.config.js (4 spaces,
// double quotes, `{a, b}`, no trailing commas, 140 columns); typescript-eslint's recommended-type-checked set on the
// TypeScript that tsconfig.json covers, less the rules turned off below, each with its reason.
import js from "@eslint/js";
import {defineConfig} from "eslint/config";
import stylistic from "@stylistic/eslint-plugin";
import tseslint from "typescript-eslint";

/** Layout rules for every file, TypeScript or plain JavaScript. */
const styleRules = {
    "@stylistic/max-len": ["error", {code: 140, tabWidth: 4, ignoreUrls: true, ignoreRegExpLiterals: true}],
    "@stylistic/quotes": ["error", "double", {avoidEscape: true, allowTemplateLiterals: "always"}],
    "@stylistic/semi": ["error", "always"],
    "@stylistic/comma-dangle": ["error", "never"],
    "@stylistic/comma-spacing": ["error", {before: false, after: true}],
    "@stylistic/comma-style": ["error", "last"],
    "@stylistic/object-curly-spacing": ["error", "never"],
    "@stylistic/array-bracket-spacing": ["error", "never"],
    "@stylistic/brace-style": ["error", "1tbs", {allowSingleLine: true}],
    "@stylistic/block-spacing": ["error", "never"],
    "@stylistic/keyword-spacing": "error",
    "@stylistic/space-infix-ops": "error",
    "@stylistic/space-before-blocks": "error",
    "@stylistic/arrow-spacing": "error",
    "@stylistic/key-spacing": "error",
    "@stylistic/semi-spacing": "error",
    "@stylistic/no-trailing-spaces": "error",
    "@stylistic/eol-last": ["error", "always"],
    "@stylistic/no-multiple-empty-lines": ["error", {max: 2, maxEOF: 0, maxBOF: 0}],
    "@stylistic/no-tabs": "error",
    "@stylistic/no-mixed-spaces-and-tabs": "error",
    "@stylistic/spaced-comment": ["error", "always", {markers: ["/"], exceptions: ["-", "="]}],
    "@stylistic/type-annotation-spacing": "error",
    "@stylistic/member-delimiter-style": ["error", {
        multiline: {delimiter: "comma", requireLast: false},
        singleline: {delimiter: "comma", requireLast: false},
        multilineDetection: "brackets",
        overrides: {interface: {multiline: {delimiter: "semi", requireLast: true}, singleline: {delimiter: "semi", requireLast: false}}}
    }],
    // A chain of ternaries steps each branch in by one level, which the rule cannot express: branches are left as written.
    "@stylistic/indent": ["error", 4, {SwitchCase: 1, ignoredNodes: ["ConditionalExpression > *", "TSConditionalType > *"]}]
};

export default defineConfig(
    {
        ignores: ["dist/", "node_modules/", ".e2e/", ".tools/", "test-artifacts/"]
    },
    {
        files: ["**/*.{ts,mjs,cjs,js}"],
        plugins: {"@stylistic": stylistic},
        languageOptions: {ecmaVersion: 2023, sourceType: "module"},
        linterOptions: {reportUnusedDisableDirectives: "error"},
        rules: styleRules
    },
    {
        files: ["**/*.ts"],
        extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
        languageOptions: {
            parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}
        },
        rules: {
            // The project's `_name` convention marks what a destructuring drops or a signature must accept.
            "@typescript-eslint/no-unused-vars": ["error", {
                argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true
            }],
            // node:test's `describe`/`it`/`test` return promises the runner itself awaits.
            "@typescript-eslint/no-floating-promises": ["error", {
                allowForKnownSafeCalls: [{from: "package", package: "node:test", name: ["describe", "it", "test", "suite"]}]
            }],
            // `async` marks a method that implements a Promise-returning port (engines, stores, fakes of them) even
            // when its body has nothing to await: it keeps a synchronous throw a rejection, as callers expect.
            "@typescript-eslint/require-await": "off",
            // `String(value)` of a client's JSON value (`unknown`) is deliberate: a schema keyword, a catalog field or
            // a WebSocket frame is rendered whatever it is, and `[object Object]` is an acceptable rendering there.
            "@typescript-eslint/no-base-to-string": "off",
            // `list[index]!` (and `found!`) is how the code says a value is known to be there, written as if
            // noUncheckedIndexedAccess were on; this tsconfig leaves it off, so the rule would strip ~450 such marks.
            "@typescript-eslint/no-unnecessary-type-assertion": "off"
        }
    },
    {
        // Tests and benchmarks read wire bodies (`await response.json()`) and poke at them: `any` is their point.
        files: ["test/**/*.ts", "bench/**/*.ts"],
        rules: {
            "@typescript-eslint/no-explicit-any": "off",
            "@typescript-eslint/no-unsafe-argument": "off",
            "@typescript-eslint/no-unsafe-assignment": "off",
            "@typescript-eslint/no-unsafe-call": "off",
            "@typescript-eslint/no-unsafe-member-access": "off",
            "@typescript-eslint/no-unsafe-return": "off"
        }
    },
    {
        files: ["**/*.{mjs,cjs,js}"],
        extends: [js.configs.recommended],
        languageOptions: {
            globals: {
                process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly", setTimeout: "readonly",
                clearTimeout: "readonly", fetch: "readonly", AbortController: "readonly", TextDecoder: "readonly",
                performance: "readonly"
            }
        }
    },
    {
        files: ["**/*.cjs", "test/e2e-vscode/lmProbe/extension.js"],
        languageOptions: {sourceType: "commonjs", globals: {module: "writable", require: "readonly", __dirname: "readonly"}}
    }
);
