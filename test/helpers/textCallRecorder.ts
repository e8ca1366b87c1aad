import assert from "node:assert/strict";
import {TextCallReader, type ReadCall} from "../../src/engine/llama/families/TextCallReader.js";
import {textCallFormats, type TextCallFormatName, type TextCallTools} from "../../src/engine/llama/families/textCallFormats.js";

/** A call as the sink heard of it: its name, its deltas joined, how it ended (undefined: left open). */
export type HeardCall = {name: string, json: string, deltas: number, ended?: "completed" | "incomplete"};

export type Recorded = {answer: string, calls: ReadCall[], heard: HeardCall[]};

/**
 * Feeds `chunks` to a TextCallReader of `format` and records what its sink hears, checking the sink's rules as it
 * goes: each call started once, numbered in order, its deltas between its start and its end, ended at most once.
 */
export function readChunks(format: TextCallFormatName, tools: TextCallTools, chunks: readonly string[],
    options: {maxCalls?: number, cut?: boolean} = {}): Recorded {
    let answer = "";
    const heard: HeardCall[] = [];
    const open = (index: number) => {
        const call = heard[index];
        assert.ok(call != null && call.ended == null, `call ${index} is open`);
        return call;
    };
    const reader = new TextCallReader(textCallFormats[format], tools, {
        text: (text) => {
            assert.notEqual(text, "", "no empty text");
            answer += text;
        },
        start: (index, name) => {
            assert.equal(index, heard.length, "calls are numbered in order");
            heard.push({name, json: "", deltas: 0});
        },
        delta: (index, json) => {
            assert.notEqual(json, "", "no empty delta");
            open(index).json += json;
            open(index).deltas++;
        },
        end: (index, incomplete) => {
            open(index).ended = incomplete ? "incomplete" : "completed";
        }
    }, options.maxCalls);
    for (const chunk of chunks)
        reader.push(chunk);
    const calls = reader.finish(options.cut);
    return {answer, calls, heard};
}

/** `text` cut into chunks of `size` characters. */
export function chunksOf(text: string, size: number): string[] {
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += size)
        chunks.push(text.slice(at, at + size));
    return chunks;
}
