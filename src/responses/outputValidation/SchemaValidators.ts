import {Ajv2020, type Options, type ValidateFunction} from "ajv/dist/2020.js";
import {anonymousSchema} from "./anonymousSchema.js";

/**
 * How many compiled client schemas stay cached. An ordinary one holds about 15 KiB, one at the schema limits about
 * 250 KiB, so the cache holds 2 to 32 MiB, small next to the model. A client sends the same schemas every turn; one
 * whose strict tools and formats outnumber this recompiles some of them each turn, which costs time, not memory.
 */
export const compiledSchemaLimit = 128;

const options: Options = {strict: false, allErrors: false, validateFormats: false};

/**
 * Compiled ajv (Draft 2020-12) validators for client schemas (strict tools' parameters, `json_schema` formats),
 * cached by schema text, least recently used evicted first: a client sends the same schema every turn, and
 * compiling costs far more than validating.
 *
 * An ajv instance keeps every schema it compiled (its `_cache`, keyed by the schema object, and the generated
 * code's scope, which `removeSchema` leaves alone), so each entry compiles in an instance of its own that is
 * dropped with the entry: the limit bounds the memory, not just this map. The schemas compile anonymously
 * (`anonymousSchema`, `addUsedSchema: false`): nothing registers process-wide, so no schema, from any key,
 * can collide with another's `$id`. The cache is shared between keys: an entry is the schema's own content,
 * so a key learns at most, from a faster answer, that the same schema was used lately.
 */
export class SchemaValidators {
    /**
     * Checks schemas against the draft 2020-12 meta-schema (which it compiles once) and formats error text; it
     * compiles no client schema, so it holds none.
     */
    private readonly meta = new Ajv2020(options);
    /** In order of last use, oldest first (a hit moves its entry to the end). */
    private readonly cache = new Map<string, ValidateFunction>();

    public constructor(private readonly limit = compiledSchemaLimit) {}

    /** How many compiled validators are held. */
    public get size(): number {
        return this.cache.size;
    }

    public get(schema: Record<string, unknown>): ValidateFunction {
        const key = JSON.stringify(schema);
        let validate = this.cache.get(key);
        if (validate != null)
            this.cache.delete(key);
        else
            validate = this.compile(schema);
        this.cache.set(key, validate);
        while (this.cache.size > this.limit)
            this.cache.delete(this.cache.keys().next().value!);
        return validate;
    }

    /** A short reason why `value` does not match, or null when it does. */
    public problem(schema: Record<string, unknown>, value: unknown): string | null {
        const validate = this.get(schema);
        if (validate(value))
            return null;
        return this.meta.errorsText(validate.errors, {dataVar: "value"});
    }

    /** Throws (as ajv's own compile would) when the schema is not a valid draft 2020-12 schema. */
    private compile(schema: Record<string, unknown>): ValidateFunction {
        const anonymous = anonymousSchema(schema);
        if (!this.meta.validateSchema(anonymous))
            throw new Error(`schema is invalid: ${this.meta.errorsText(this.meta.errors)}`);
        return new Ajv2020({...options, meta: false, validateSchema: false, addUsedSchema: false}).compile(anonymous);
    }
}

export const schemaValidators = new SchemaValidators();
