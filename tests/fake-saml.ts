// A real SAML 2.0 identity provider for tests: samlify reads Atrium's AuthnRequest (HTTP-Redirect)
// and signs its login response with a real key (tests/fixtures/saml), as Okta or Entra ID would.
// `tweak` changes what the provider asserts (audience, recipient, validity, signatures) to play
// a misconfigured or hostile provider; its metadata is served over HTTP for "metadata by URL", and
// its /sso page lets a browser (Playwright) sign in by typing an email, then posts back to Atrium.
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as samlifyExports from "samlify";

// Node's own ESM loader (Playwright) does not see every name of this CommonJS module (SamlLib);
// its default export, the module's exports object, has them all.
const samlify = (samlifyExports as { default?: typeof samlifyExports }).default ?? samlifyExports;

samlify.setSchemaValidator({ validate: () => Promise.resolve("skipped") });

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "saml");
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
  /** The same provider's metadata after it rotated its signing key to the one `signedByImpostor` signs with. */
  rotatedMetadataXml: string;
  /** What its metadata URL answers from now on: this document, or null for a 503. */
  serveMetadata(xml: string | null): void;
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

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><title>Fake SAML IdP</title></head><body><main>${body}</main></body></html>`;
}

async function readForm(request: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export async function startFakeSamlIdp(): Promise<FakeSamlIdp> {
  // What the metadata URL answers (null: 503); the provider's own metadata once it is made.
  let served: string | null = null;
  let base = "http://127.0.0.1";
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", base);
    if (url.pathname === "/sso") {
      void signInPage(request, url).then(
        (html) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html),
        (error: Error) => response.writeHead(500).end(error.message),
      );
      return;
    }
    if (served === null) {
      response.writeHead(503).end("Down for maintenance");
      return;
    }
    response.writeHead(200, { "content-type": "application/samlmetadata+xml" });
    response.end(served);
  });

  /** The provider's login page, then the page that posts its answer to the service provider's ACS. */
  async function signInPage(request: http.IncomingMessage, url: URL): Promise<string> {
    if (request.method === "GET")
      return page(
        `<h1>Sign in to the fake IdP</h1><form method="post" action="/sso"><input type="hidden" name="url" value="${escapeHtml(url.href)}">` +
          `<label>Email <input name="email" type="email"></label> <button>Sign in</button></form>`,
      );
    const form = await readForm(request);
    const authorizeUrl = form.get("url")!;
    // The AuthnRequest's issuer is Atrium's entity id, which is also its metadata's URL.
    const authnRequest = inflateRawSync(
      Buffer.from(new URL(authorizeUrl).searchParams.get("SAMLRequest")!, "base64"),
    ).toString("utf8");
    const spEntityId = /<saml:Issuer[^>]*>([^<]+)</.exec(authnRequest)![1]!;
    const spMetadata = await (await fetch(spEntityId)).text();
    const acs = /AssertionConsumerService[^>]*Location="([^"]+)"/.exec(spMetadata)![1]!;
    const samlResponse = await respond(authorizeUrl, spMetadata, { email: form.get("email") ?? "" });
    return page(
      `<form method="post" action="${escapeHtml(acs)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}">` +
        `<button>Continue</button></form>`,
    );
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${base}/idp`;
  const ssoUrl = `${base}/sso`;
  const idp = identityProvider(entityId, ssoUrl, "idp");
  const metadataXml = idp.getMetadata();
  served = metadataXml;

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
    rotatedMetadataXml: identityProvider(entityId, ssoUrl, "impostor").getMetadata(),
    serveMetadata: (xml) => {
      served = xml;
    },
    respond,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
