/**
 * Signs a person in to a test BFF through a test identity provider as a browser would, without
 * one: follows every redirect by hand, keeping each site's cookies apart, and submits the
 * provider's sign-in form. Returns the workbench session's cookie header.
 */
export async function oidcSignIn(
  workbenchUrl: string,
  login: string,
): Promise<{ cookie: string; landing: Response }> {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (url: URL) => {
    let jar = jars.get(url.host);
    if (!jar) jars.set(url.host, (jar = new Map()));
    return jar;
  };
  const send = async (url: URL, init: RequestInit = {}): Promise<Response> => {
    const jar = jarOf(url);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const separator = pair!.indexOf('=');
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };

  let url = new URL('/auth/oidc/sign-in?next=/keys', workbenchUrl);
  let response = await send(url);
  for (let hop = 0; hop < 20; hop += 1) {
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location')!, url);
      response = await send(url);
      continue;
    }
    const text = await response.clone().text();
    const form = /<form method="post" action="([^"]+)"/.exec(text);
    if (response.status === 200 && form && url.origin !== new URL(workbenchUrl).origin) {
      url = new URL(form[1]!, url);
      response = await send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ login }).toString(),
      });
      continue;
    }
    break;
  }
  const session = jarOf(new URL(workbenchUrl)).get('workbench_session');
  if (!session) {
    throw new Error(
      `no session after signing in as ${login}: ended at ${url.pathname}${url.search} with ${response.status}`,
    );
  }
  return { cookie: `workbench_session=${session}`, landing: response };
}
