import { type HashJob, hashAnswer } from "./hash-jobs.ts";

/**
 * A worker thread of the evidence's reads (hash-jobs.ts): it reads and
 * hashes its share of the files, each tied to the stat the look took
 * (tied-read.ts), and answers once with every result, in its share's order.
 * Built into the binary as an entry of its own (build.ts).
 */
declare const self: Worker;

self.onmessage = (event: MessageEvent<HashJob>) => {
	self.postMessage(hashAnswer(event.data));
};
