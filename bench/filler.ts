/** English-like filler: about one token per word with the shared tokenizer (every model here has it). */
export function words(count: number, seed: number): string {
    const vocabulary = [
        "the", "little", "dog", "ran", "to", "park", "and", "found", "a", "red", "ball", "then", "Lily", "smiled", "happy", "sun"
    ];
    return Array.from({length: count}, (_, index) => vocabulary[(index * 7 + seed * 13 + (index >> 3)) % vocabulary.length]).join(" ");
}
