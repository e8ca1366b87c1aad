/** Statistics for benchmarks that compare two paths in back-to-back pairs on a machine whose pace drifts. */

export function quantile(values: readonly number[], q: number): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.round((sorted.length - 1) * q)]!;
}

/** The middle value; of an even count, the mean of the two middle ones (the upper one alone would flatter a figure). */
export function median(values: readonly number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = (sorted.length - 1) / 2;
    return (sorted[Math.floor(middle)]! + sorted[Math.ceil(middle)]!) / 2;
}

/** Runs `a` then `b` on even pairs and `b` then `a` on odd ones, so that the order's own effect cancels out. */
export async function alternating<A, B>(pair: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
    if (pair % 2 === 0) {
        const first = await a();
        return [first, await b()];
    }
    const second = await b();
    return [await a(), second];
}
