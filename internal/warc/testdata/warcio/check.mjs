// check.mjs reads a WARC file with warcio.js and prints, as JSON, what it
// found: every record's type, ID, target, offset and length as warcio's
// parser reports them, whether the block and payload digests match digests
// recomputed here from the bytes warcio hands out, the HTTP status, and a
// SHA-1 of the content after warcio removed chunking and content encoding.
// TestWarcioInterop (interop_test.go) compares it with what Go wrote.
//
// Usage: node check.mjs FILE.warc.gz
//
// warcio.js does not verify digests itself, so they are recomputed with
// node:crypto and an RFC 4648 base32 encoder written here, independent of
// the Go code.
import { createReadStream, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { WARCParser, AsyncIterReader } from "warcio";

const path = process.argv[2];
if (!path) {
  console.error("usage: node check.mjs FILE.warc.gz");
  process.exit(2);
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32(bytes) {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) {
    out += B32[(value << (5 - bits)) & 31];
  }
  while (out.length % 8 !== 0) {
    out += "=";
  }
  return out;
}

const sha1 = (bytes) => createHash("sha1").update(bytes).digest();
const warcDigest = (bytes) => "sha1:" + base32(sha1(bytes));

// Pass 1: raw blocks (no HTTP parsing) for block digests, offsets, lengths.
const records = [];
const raw = new WARCParser(createReadStream(path), { parseHttp: false });
for await (const rec of raw) {
  const block = await rec.readFully(false);
  await rec.skipFully();
  const want = rec.warcHeader("WARC-Block-Digest");
  records.push({
    type: rec.warcType,
    id: rec.warcHeader("WARC-Record-ID"),
    targetURI: rec.warcTargetURI ?? "",
    date: rec.warcDate ?? "",
    concurrentTo: rec.warcHeader("WARC-Concurrent-To") ?? "",
    offset: raw.offset,
    length: raw.recordLength,
    contentLength: rec.warcContentLength,
    blockBytes: block.length,
    blockDigestOK: want ? warcDigest(block) === want : null,
  });
}

// Pass 2: warcio parses the HTTP messages; check payload digests over the
// body with chunking removed (warcio's own de-chunker), and decode content.
let i = 0;
const http = new WARCParser(createReadStream(path));
for await (const rec of http) {
  const r = records[i++];
  const want = rec.warcHeader("WARC-Payload-Digest");
  r.payloadDigestOK = null;
  const code = rec.httpHeaders?.statusCode; // NaN for a request
  r.status = Number.isInteger(code) ? code : 0;
  r.httpLine = rec.httpHeaders?.statusline ?? "";
  if (rec.httpHeaders) {
    const body = await rec.readFully(false); // as stored, still chunked
    const chunked = rec.httpHeaders.headers.get("Transfer-Encoding") === "chunked";
    const payload = chunked
      ? await new AsyncIterReader([body], null, true).readFully()
      : body;
    if (want && rec.warcType !== "revisit") {
      r.payloadDigestOK = warcDigest(payload) === want;
    }
    const content = await rec.readFully(true); // chunking and gzip removed
    r.contentSHA1 = sha1(content).toString("hex");
  } else {
    await rec.skipFully();
  }
}

const pkg = JSON.parse(
  readFileSync(new URL("./node_modules/warcio/package.json", import.meta.url)),
);
console.log(
  JSON.stringify({ warcio: pkg.version, count: records.length, records }, null, 1),
);
