// What the single sign-on specs share: an OpenID provider started by the test with Atrium
// registered as its client, and the organization's connection to it set through the admin CLI.
import { E2E_PORT } from "../playwright.config";
import { startFakeOidc, type FakeOidc } from "../tests/fake-oidc";
import { admin } from "./fixtures";

// The admin CLI seals the client secret with the server's key (playwright.config.ts) and checks
// the issuer, a loopback address here, as the server does.
process.env.ATRIUM_SECRET_KEY = "e2e-secret-key-0123456789-abcdefghijklmnop";
process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";

const CLIENT_SECRET = "atrium-e2e-client-secret";

/** The provider, with Atrium as its client (the redirect URI is built from PUBLIC_ORIGIN) and these accounts. */
export function startOidcProvider(accounts: Parameters<typeof startFakeOidc>[1] = {}): Promise<FakeOidc> {
  return startFakeOidc(
    [
      {
        client_id: "atrium",
        client_secret: CLIENT_SECRET,
        redirect_uris: [`http://127.0.0.1:${E2E_PORT}/auth/oidc/callback`],
      },
    ],
    accounts,
  );
}

/** Signs the organization's members (and end users of portals that allow it) of `domain` in with `provider`. */
export async function connectSso(
  organizationId: string,
  provider: FakeOidc,
  domain: string,
  name = "Contoso",
): Promise<void> {
  await admin(
    "sso",
    "set",
    "--org",
    organizationId,
    "--issuer",
    provider.issuer,
    "--client-id",
    "atrium",
    "--client-secret",
    CLIENT_SECRET,
    "--domains",
    domain,
    "--name",
    name,
  );
}
