import {Ajv2020, type ValidateFunction} from "ajv/dist/2020.js";

const cacheLimit = 128;

/**
 * Compiled ajv (Draft 2020-12) validators for client schemas, cached by schema text: a client sends
 * the same schema every turn, and compiling costs far more than validating. Draft-07 `$schema`
 * keys (what zod and the SDKs write) are dropped before compiling, since the keywords this server
 * accepts mean the same in both drafts.
 */
export class SchemaValidators {
    private readonly ajv = new Ajv2020({strict: false, allErrors: false, validateFormats: false});
    private readonly cache = new Map<string, ValidateFunction>();

    public get(schema: Record<string, unknown>): ValidateFunction {
        const key = JSON.stringify(schema);
        let validate = this.cache.get(key);
        if (validate == null) {
            const {$schema: _ignored, ...rest} = schema;
            validate = this.ajv.compile(rest);
            this.cache.set(key, validate);
            while (this.cache.size > cacheLimit)
                this.cache.delete(this.cache.keys().next().value!);
        }
        return validate;
    }

    /** A short reason why `value` does not match, or null when it does. */
    public problem(schema: Record<string, unknown>, value: unknown): string | null {
        const validate = this.get(schema);
        if (validate(value))
            return null;
        return this.ajv.errorsText(validate.errors, {dataVar: "value"});
    }
}

export const schemaValidators = new SchemaValidators();
