import { csrfRefusal, csrfToken } from '../../../src/board/csrf';

const token = csrfToken('secret of this board process');
const good = {
  host: '127.0.0.1:8780',
  origin: 'http://127.0.0.1:8780',
  secFetchSite: 'same-origin',
  formToken: token,
};

describe('a state-changing request to the board', () => {
  it('goes on from the board itself, with or without the browser saying where it comes from', () => {
    expect(csrfRefusal(good, { token, loopbackOnly: true })).toBeNull();
    expect(
      csrfRefusal({ ...good, origin: undefined, secFetchSite: undefined }, { token, loopbackOnly: true }),
    ).toBeNull();
  });

  it('is refused from another site, another origin, without the token or with a wrong one', () => {
    const refused = (request: Partial<typeof good>) =>
      csrfRefusal({ ...good, ...request }, { token, loopbackOnly: true });
    expect(refused({ secFetchSite: 'cross-site' })).toMatch(/cross-site/);
    expect(refused({ secFetchSite: 'same-site' })).toMatch(/same-site/);
    expect(refused({ origin: 'http://evil.example' })).toMatch(/Origin/);
    expect(refused({ origin: 'null' })).toMatch(/Origin/);
    expect(refused({ formToken: undefined })).toMatch(/CSRF/);
    expect(refused({ formToken: `${token.slice(0, -1)}x` })).toMatch(/CSRF/);
  });

  it('is refused when a loopback board is reached by another name (DNS rebinding)', () => {
    const rebound = { ...good, host: 'evil.example:8780', origin: 'http://evil.example:8780' };
    expect(csrfRefusal(rebound, { token, loopbackOnly: true })).toMatch(/Host/);
    // a board with a token answers to any name: its cookie is what keeps others out
    expect(csrfRefusal(rebound, { token, loopbackOnly: false })).toBeNull();
    expect(csrfRefusal({ ...good, host: undefined }, { token, loopbackOnly: false })).toMatch(/Host/);
  });
});
