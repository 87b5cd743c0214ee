// A real SAML 2.0 identity provider for tests: samlify reads Atrium's AuthnRequest (HTTP-Redirect)
// and signs its login response with a real key (tests/fixtures/saml), as Okta or Entra ID would.
// `tweak` changes what the provider asserts (audience, recipient, validity, signatures) to play
// a misconfigured or hostile provider; its metadata is served over HTTP for "metadata by URL".
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import * as samlify from "samlify";

samlify.setSchemaValidator({ validate: () => Promise.resolve("skipped") });

const FIXTURES = path.join(__dirname, "fixtures", "saml");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

export const IDP_CERTIFICATE = fixture("idp-cert.pem");

export interface SamlUser {
  email: string;
  name?: string;
}

export interface SamlTweak {
  /** No signature anywhere. */
  unsigned?: boolean;
  /** The response signed, the assertion inside it not. */
  responseSignedOnly?: boolean;
  /** Signed with a key the connection does not know. */
  signedByImpostor?: boolean;
  audience?: string;
  recipient?: string;
  /** Minutes from now the assertion stops being valid (negative: expired). */
  validForMinutes?: number;
  inResponseTo?: string;
}

export interface FakeSamlIdp {
  entityId: string;
  ssoUrl: string;
  metadataXml: string;
  metadataUrl: string;
  /** Answers Atrium's AuthnRequest (the URL Atrium redirected to) as `user`: the SAMLResponse to POST. */
  respond(authorizeUrl: string, spMetadataXml: string, user: SamlUser, tweak?: SamlTweak): Promise<string>;
  close(): Promise<void>;
}

const attributeStatement =
  '<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue xsi:type="xs:string">{attrEmail}</saml:AttributeValue></saml:Attribute>' +
  '<saml:Attribute Name="name"><saml:AttributeValue xsi:type="xs:string">{attrName}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>';

function identityProvider(entityId: string, ssoUrl: string, keyName: "idp" | "impostor") {
  return samlify.IdentityProvider({
    entityID: entityId,
    signingCert: fixture(`${keyName}-cert.pem`),
    privateKey: fixture(`${keyName}-key.pem`),
    requestSignatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    nameIDFormat: [EMAIL_FORMAT],
    singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: ssoUrl }],
  });
}

export async function startFakeSamlIdp(): Promise<FakeSamlIdp> {
  let metadataXml = "";
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/samlmetadata+xml" });
    response.end(metadataXml);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${base}/idp`;
  const ssoUrl = `${base}/sso`;
  const idp = identityProvider(entityId, ssoUrl, "idp");
  metadataXml = idp.getMetadata();

  async function respond(authorizeUrl: string, spMetadataXml: string, user: SamlUser, tweak: SamlTweak = {}) {
    const wantsAssertionSigned = !tweak.responseSignedOnly;
    const sp = samlify.ServiceProvider({
      metadata: wantsAssertionSigned
        ? spMetadataXml
        : spMetadataXml.replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"'),
    });
    const query = Object.fromEntries(new URL(authorizeUrl).searchParams);
    const request = await idp.parseLoginRequest(sp, "redirect", { query });
    const requestId = request.extract.request!.id as string;
    const now = new Date();
    const minutes = (count: number) => new Date(now.getTime() + count * 60_000).toISOString();
    const validFor = tweak.validForMinutes ?? 5;
    const acs = sp.entityMeta.getAssertionConsumerService(samlify.Constants.wording.binding.post) as string;
    const signer = tweak.signedByImpostor ? identityProvider(entityId, ssoUrl, "impostor") : idp;
    const { context } = await signer.createLoginResponse(
      sp,
      { extract: request.extract },
      "post",
      { email: user.email },
      {
        customTagReplacement: (template: string) => {
          const id = `_${Math.random().toString(16).slice(2)}${Date.now()}`;
          const values = {
            ID: id,
            AssertionID: `_a${id}`,
            Destination: acs,
            Audience: tweak.audience ?? sp.entityMeta.getEntityID(),
            SubjectRecipient: tweak.recipient ?? acs,
            Issuer: entityId,
            IssueInstant: minutes(Math.min(0, validFor - 5)),
            StatusCode: samlify.Constants.StatusCode.Success,
            ConditionsNotBefore: minutes(Math.min(0, validFor - 5)),
            ConditionsNotOnOrAfter: minutes(validFor),
            SubjectConfirmationDataNotOnOrAfter: minutes(validFor),
            NameIDFormat: EMAIL_FORMAT,
            NameID: user.email,
            InResponseTo: tweak.inResponseTo ?? requestId,
            AuthnStatement: "",
            attrEmail: user.email,
            attrName: user.name ?? "",
          };
          const xml = samlify.SamlLib.replaceTagsByValue(
            template.replace("{AttributeStatement}", attributeStatement),
            values,
          );
          return { id, context: xml };
        },
      },
    );
    if (!tweak.unsigned) return context;
    const unsigned = Buffer.from(context, "base64")
      .toString("utf8")
      .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, "");
    return Buffer.from(unsigned).toString("base64");
  }

  return {
    entityId,
    ssoUrl,
    metadataXml,
    metadataUrl: `${base}/metadata`,
    respond,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
