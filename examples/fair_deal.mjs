// Re-derive a provably fair canasta deal, independently of the engine (docs/fair-deals.md).
// node examples/fair_deal.mjs SECRET_HEX HAND_NUMBER "SEED0,SEED1,..." PACKS [italian]
// prints the commitment, then the deck from the top (the first card dealt first), then the Italian cut.
import { createHash, createHmac } from "node:crypto";

const [secretHex, hand, seeds, packs, family] = process.argv.slice(2);
const secret = Buffer.from(secretHex, "hex");
const context = `canasta-deal/1|${Number(hand)}|${seeds}|`;
let block = 0, buf = Buffer.alloc(0);
function nextU32() {
  if (buf.length < 4) {
    const mac = createHmac("sha256", secret).update(context + String(block++), "ascii").digest();
    buf = Buffer.concat([buf, mac]);
  }
  const u = buf.readUInt32BE(0);
  buf = buf.subarray(4);
  return u;
}
function below(n) {  // uniform in [0, n): rejection sampling, no modulo bias
  const limit = 2 ** 32 - (2 ** 32 % n);
  for (;;) { const u = nextU32(); if (u < limit) return u % n; }
}
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const deck = [];
for (let p = 0; p < Number(packs); p++) for (const r of RANKS) for (const s of "SHDC") deck.push(r + s);
for (let p = 0; p < 2 * Number(packs); p++) deck.push("JK");
for (let i = deck.length - 1; i > 0; i--) { const j = below(i + 1); [deck[i], deck[j]] = [deck[j], deck[i]]; }
console.log(createHash("sha256").update(secret).digest("hex"));
console.log(deck.join(" "));
if (family === "italian") console.log(30 + below(deck.length - 60));
