// A real OpenID provider for tests (oidc-provider with its development login and consent
// screens) on 127.0.0.1, and a small browser that walks through them with a cookie jar.
import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface OidcAccount {
  email: string;
  email_verified?: boolean;
}

export interface FakeOidc {
  issuer: string;
  close(): Promise<void>;
}

export interface OidcClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface FakeOidcOptions {
  /**
   * The provider signs ID tokens with one key and publishes another under the same key id at
   * its jwks_uri: what a token forged by someone else, or an impostor at the token endpoint, looks like.
   */
  signsWithUnpublishedKey?: boolean;
}

const KEY_ID = "fake-oidc-signing-key";

/** An RS256 key pair as JWKs: the private one to sign with, the public one to publish. */
function signingKeys(): { privateJwk: object; publicJwk: object } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const about = { kid: KEY_ID, alg: "RS256", use: "sig" };
  return {
    privateJwk: { ...privateKey.export({ format: "jwk" }), ...about },
    publicJwk: { ...publicKey.export({ format: "jwk" }), ...about },
  };
}

export async function startFakeOidc(
  clients: OidcClient[],
  accounts: Record<string, OidcAccount>,
  options: FakeOidcOptions = {},
): Promise<FakeOidc> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signing = signingKeys();
  const published = options.signsWithUnpublishedKey ? signingKeys().publicJwk : signing.publicJwk;
  const provider = new Provider(issuer, {
    jwks: { keys: [signing.privateJwk] },
    clients: clients.map((client) => ({
      ...client,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    })),
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, ...(accounts[id] ?? { email: `${id}@unknown.example`, email_verified: true }) }),
    }),
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["fake-oidc-cookie-key"] },
  });
  const answer = provider.callback();
  server.on("request", (request, response) => {
    if (request.url === "/jwks") {
      response.writeHead(200, { "content-type": "application/jwk-set+json" });
      response.end(JSON.stringify({ keys: [published] }));
      return;
    }
    answer(request, response);
  });
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A browser's cookies, per name (the tests' hosts never share a name). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === "" || /max-age=0/i.test(cookie) || /expires=thu, 01 jan 1970/i.test(cookie))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/**
 * Walks the provider's screens from the authorization URL as `login`: the login form, then
 * consent, until the provider redirects to `redirectUriPrefix`; returns that callback URL.
 */
export async function signInAtProvider(
  authorizationUrl: string,
  login: string,
  redirectUriPrefix: string,
  jar: CookieJar,
): Promise<string> {
  let url = authorizationUrl;
  let method = "GET";
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      method,
      body,
      redirect: "manual",
      headers: { cookie: jar.header(), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    });
    jar.store(response);
    const location = response.headers.get("location");
    if (location) {
      const next = new URL(location, url).href;
      if (next.startsWith(redirectUriPrefix)) return next;
      [url, method, body] = [next, "GET", undefined];
      continue;
    }
    const html = await response.text();
    const action = /action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`The provider answered ${response.status} with no form: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    [url, method] = [new URL(action.replace(/&amp;/g, "&"), url).href, "POST"];
    body = new URLSearchParams(
      prompt === "login" ? { prompt, login, password: "any" } : { prompt: prompt ?? "consent" },
    );
  }
  throw new Error("The provider never redirected back.");
}
