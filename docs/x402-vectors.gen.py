#!/usr/bin/env python3
"""Generates docs/x402-vectors.json independently of the TypeScript code.

The `canonical` request lines (method, path, query) are written BY HAND below from the rules in docs/x402.md;
this script only appends hex(SHA-256(body)) and computes requestHash and reference with hashlib and a small
base58 encoder. Run: python3 docs/x402-vectors.gen.py > docs/x402-vectors.json
"""
import base64, hashlib, json, sys

B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

def b58encode(data: bytes) -> str:
    n = int.from_bytes(data, 'big')
    out = ''
    while n > 0:
        n, r = divmod(n, 58)
        out = B58[r] + out
    zeros = len(data) - len(data.lstrip(b'\0'))
    return '1' * zeros + out

def b58decode(s: str) -> bytes:
    n = 0
    for ch in s:
        n = n * 58 + B58.index(ch)
    body = n.to_bytes((n.bit_length() + 7) // 8, 'big') if n else b''
    zeros = len(s) - len(s.lstrip('1'))
    return b'\0' * zeros + body

PAYER_A = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'
PAYER_B = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW'
for p in (PAYER_A, PAYER_B):
    assert len(b58decode(p)) == 32 and b58encode(b58decode(p)) == p, p

TAG = 'api.sigil.test'
NONCE = 'c2VydmVyLXNlY3JldC0x'

# (note, method, path, query, body (str | bytes), domainTag, nonce, payer,
#  hand-written canonical first three lines, whether the body bytes are hashed (False for GET/HEAD))
V = [
    ('plain GET, empty query, empty body', 'GET', '/v1/resolve/alice', '', '', TAG, NONCE, PAYER_A,
     'GET\n/v1/resolve/alice\n\n', False),
    ('percent-encoded @ kept as %40, case preserved', 'GET', '/v1/resolve/%40Alice', '', '', TAG, NONCE, PAYER_A,
     'GET\n/v1/resolve/%40Alice\n\n', False),
    ('raw @ is encoded: same canonical as %40', 'GET', '/v1/resolve/@Alice', '', '', TAG, NONCE, PAYER_A,
     'GET\n/v1/resolve/%40Alice\n\n', False),
    ('lowercase hex escapes are upper-cased', 'GET', '/v1/resolve/caf%c3%a9', '', '', TAG, NONCE, PAYER_A,
     'GET\n/v1/resolve/caf%C3%A9\n\n', False),
    ('raw non-ASCII (UTF-8) segments', 'GET', '/v1/agents/café/🤖bot', '', '', TAG, NONCE, PAYER_A,
     'GET\n/v1/agents/caf%C3%A9/%F0%9F%A4%96bot\n\n', False),
    ('%2F stays inside its segment; unreserved escapes are decoded', 'GET', '/v1/resolve/a%2fb/%7Ex%2D%5F%2E%41', '',
     '', TAG, NONCE, PAYER_A, 'GET\n/v1/resolve/a%2Fb/~x-_.A\n\n', False),
    ('trailing slash and empty segment kept', 'GET', '/v1//resolve/Bob/', '', '', TAG, NONCE, PAYER_A,
     'GET\n/v1//resolve/Bob/\n\n', False),
    ('+ is literal in a path; reserved sub-delims are encoded', 'GET', "/v1/resolve/a+b!$&'()*,;=:", '', '', TAG,
     NONCE, PAYER_A, 'GET\n/v1/resolve/a%2Bb%21%24%26%27%28%29%2A%2C%3B%3D%3A\n\n', False),
    ('malformed escapes keep a literal % (encoded %25)', 'GET', '/v1/resolve/100%/x%zz%4', 'p=%&q=%g1', '', TAG,
     NONCE, PAYER_A, 'GET\n/v1/resolve/100%25/x%25zz%254\np=%25&q=%25g1\n', False),
    ('query: + is a space, %2B stays a plus, lowercase escape upper-cased', 'GET', '/v1/resolve/alice',
     'q=hello+world&r=a%2bb&s=%e2%82%ac', '', TAG, NONCE, PAYER_A,
     'GET\n/v1/resolve/alice\nq=hello%20world&r=a%2Bb&s=%E2%82%AC\n', False),
    ('query: duplicates kept, sorted by key then value in byte order (B < a)', 'GET', '/v1/resolve/alice',
     'b=2&a=2&a=1&B=0&a=10', '', TAG, NONCE, PAYER_A, 'GET\n/v1/resolve/alice\nB=0&a=1&a=10&a=2&b=2\n', False),
    ('query: key then value, not the joined pair (a < a- although "a-=" < "a=")', 'GET', '/v1/resolve/alice',
     'a-=1&a=2', '', TAG, NONCE, PAYER_A, 'GET\n/v1/resolve/alice\na=2&a-=1\n', False),
    ('query: bare keys become k=, empty pieces dropped, empty key kept', 'GET', '/v1/resolve/alice',
     '&flag&&x=1&=v&', '', TAG, NONCE, PAYER_A, 'GET\n/v1/resolve/alice\n=v&flag=&x=1\n', False),
    ('query: only the first = splits; raw non-ASCII value; payer in query', 'GET', '/v1/resolve/alice',
     'payer=' + PAYER_B + '&redirect=a=b&name=José', '', TAG, NONCE, PAYER_B,
     'GET\n/v1/resolve/alice\nname=Jos%C3%A9&payer=' + PAYER_B + '&redirect=a%3Db\n', False),
    ('POST with a JSON body (exact bytes)', 'POST', '/v1/gate/check', '', '{"handle":"alice","wallet":"x"}', TAG,
     NONCE, PAYER_A, 'POST\n/v1/gate/check\n\n', True),
    ('lowercase method upper-cased; whitespace in the body counts', 'post', '/v1/gate/check', 'v=1',
     '{ "handle": "alice" }\n', TAG, NONCE, PAYER_A, 'POST\n/v1/gate/check\nv=1\n', True),
    ('POST with a binary body (bodyBase64)', 'POST', '/v1/verify/Alice', 'mode=raw', bytes([0, 255, 254, 128, 10, 37]),
     TAG, NONCE, PAYER_A, 'POST\n/v1/verify/Alice\nmode=raw\n', True),
    ('POST with an empty body hashes the empty string', 'POST', '/v1/gate/check', '', '', TAG, NONCE, PAYER_A,
     'POST\n/v1/gate/check\n\n', True),
    ('GET ignores a body', 'get', '/v1/resolve/alice', '', 'ignored', TAG, NONCE, PAYER_A,
     'GET\n/v1/resolve/alice\n\n', False),
    ('HEAD ignores a body', 'HEAD', '/v1/resolve/alice', '', 'ignored', TAG, NONCE, PAYER_A,
     'HEAD\n/v1/resolve/alice\n\n', False),
    ('different domain tag, nonce and payer change only the reference', 'GET', '/v1/resolve/alice', '', '',
     'localhost:8787', 'another-nonce', PAYER_B, 'GET\n/v1/resolve/alice\n\n', False),
    ('root path', 'GET', '/', '', '', TAG, NONCE, PAYER_A, 'GET\n/\n\n', False),
]

out = []
for note, method, path, query, body, tag, nonce, payer, head, hashed in V:
    raw = body if isinstance(body, bytes) else body.encode('utf-8')
    assert head.count('\n') == 3, note
    canonical = head + hashlib.sha256(raw if hashed else b'').hexdigest()
    req_hash = hashlib.sha256(canonical.encode('utf-8')).hexdigest()
    preimage = 'sigil-x402-ref:v1|' + tag + '\n' + canonical + '\n' + nonce + '\n' + payer
    reference = b58encode(hashlib.sha256(preimage.encode('utf-8')).digest())
    entry = {'note': note, 'method': method, 'path': path, 'query': query}
    if isinstance(body, bytes):
        entry['bodyBase64'] = base64.b64encode(body).decode('ascii')
    else:
        entry['body'] = body
    entry.update({'domainTag': tag, 'nonce': nonce, 'payer': payer, 'canonical': canonical,
                  'requestHash': req_hash, 'reference': reference})
    out.append(entry)

json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
sys.stdout.write('\n')
