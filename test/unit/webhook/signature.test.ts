import { createHmac } from 'node:crypto';
import { verifiedSignature } from '../../../src/webhook/signature';

// GitHub's documented test vector for X-Hub-Signature-256 ("Validating webhook deliveries").
const SECRET = "It's a Secret to Everybody";
const BODY = Buffer.from('Hello, World!');
const DIGEST = '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('webhook signature', () => {
  it("accepts GitHub's test vector and returns its digest", () => {
    expect(verifiedSignature(SECRET, BODY, `sha256=${DIGEST}`)).toBe(DIGEST);
  });

  it('refuses another secret, another body, or a digest one character off', () => {
    expect(verifiedSignature('another secret', BODY, `sha256=${DIGEST}`)).toBeNull();
    expect(verifiedSignature(SECRET, Buffer.from('Hello, World?'), `sha256=${DIGEST}`)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, `sha256=${DIGEST.slice(0, -1)}8`)).toBeNull();
  });

  it('refuses a missing header, another scheme, a digest not of 64 lowercase hex digits, and an empty body', () => {
    expect(verifiedSignature(SECRET, BODY, undefined)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, `sha1=${DIGEST}`)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, DIGEST)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, `sha256=${DIGEST.toUpperCase()}`)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, `sha256=${DIGEST.slice(2)}`)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, `sha256=${DIGEST}00`)).toBeNull();
    expect(verifiedSignature(SECRET, BODY, `sha256=${'z'.repeat(64)}`)).toBeNull();
    expect(verifiedSignature(SECRET, Buffer.alloc(0), `sha256=${DIGEST}`)).toBeNull();
  });

  it('refuses a body that is not UTF-8, even signed over its exact bytes', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const digest = createHmac('sha256', SECRET).update(bytes).digest('hex');
    expect(verifiedSignature(SECRET, bytes, `sha256=${digest}`)).toBeNull();
    // the same signing over a UTF-8 body passes: what is refused is the encoding, not the signature
    const text = Buffer.from('{"é":1}');
    const signed = createHmac('sha256', SECRET).update(text).digest('hex');
    expect(verifiedSignature(SECRET, text, `sha256=${signed}`)).toBe(signed);
  });
});
