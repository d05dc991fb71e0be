/**
 * Pure parts of the ClusterWarehouse access-key and idp authentication (no I/O, unit-tested):
 * which cluster or workgroup a host names, and reading the SAML response an Okta-style identity
 * provider returns (the HTML form, the assertion's AWS attributes).
 *
 * The SAML assertion is not verified here: STS verifies its signature against the SAML
 * provider registered in the account (AssumeRoleWithSAML). The service only reads which roles
 * it offers and the optional Redshift attributes.
 */

export type ClusterEndpoint =
  | { kind: 'provisioned'; clusterIdentifier: string; region: string }
  | { kind: 'serverless'; workgroup: string; region: string };

const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const CLUSTER_ID = /^[a-z][a-z0-9-]{0,62}$/;
const WORKGROUP = /^[a-z0-9-]{3,64}$/;

/**
 * The cluster (or serverless workgroup) and region behind a host:
 * `<cluster>.<id>.<region>.redshift.amazonaws.com[.cn]` or
 * `<workgroup>.<account>.<region>.redshift-serverless.amazonaws.com[.cn]`. For other hosts
 * (custom domain names, VPC endpoints, tunnels) `connectArgs` names them:
 * `clusterIdentifier=…&region=…` or `workgroup=…&region=…`; connectArgs win over the host.
 */
export function clusterEndpoint(host: string, connectArgs?: string): ClusterEndpoint | undefined {
  const args = new URLSearchParams(connectArgs ?? '');
  const argRegion = args.get('region')?.trim().toLowerCase();
  const argCluster = args.get('clusterIdentifier')?.trim().toLowerCase();
  const argWorkgroup = args.get('workgroup')?.trim().toLowerCase();
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  let parsed: ClusterEndpoint | undefined;
  const suffixAt = (name: string) => {
    const i = labels.indexOf(name);
    const rest = labels.slice(i + 1).join('.');
    return i === 3 && labels.length >= 5 && (rest === 'amazonaws.com' || rest === 'amazonaws.com.cn');
  };
  const [first = '', , region = ''] = labels;
  if (suffixAt('redshift') && CLUSTER_ID.test(first) && REGION.test(region))
    parsed = { kind: 'provisioned', clusterIdentifier: first, region };
  else if (suffixAt('redshift-serverless') && WORKGROUP.test(first) && REGION.test(region))
    parsed = { kind: 'serverless', workgroup: first, region };

  const finalRegion = argRegion ?? parsed?.region;
  if (!finalRegion || !REGION.test(finalRegion)) return undefined;
  if (argCluster !== undefined)
    return CLUSTER_ID.test(argCluster)
      ? { kind: 'provisioned', clusterIdentifier: argCluster, region: finalRegion }
      : undefined;
  if (argWorkgroup !== undefined)
    return WORKGROUP.test(argWorkgroup)
      ? { kind: 'serverless', workgroup: argWorkgroup, region: finalRegion }
      : undefined;
  return parsed ? { ...parsed, region: finalRegion } : undefined;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the character references HTML attributes and XML text use. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code =
        ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** The attributes of one HTML start tag (`<input a="x" b='y' c=z>`), names lower-cased. */
function tagAttributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /([^\s=/<>"']+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
  for (const m of tag.matchAll(re)) {
    const name = m[1];
    if (name) out.set(name.toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return out;
}

/**
 * The base64 `SAMLResponse` field of the auto-submitting form an identity provider returns for
 * an app's SSO URL, or undefined when the page has none (a sign-in page, an error page).
 */
export function samlResponseFromHtml(html: string): string | undefined {
  for (const m of html.matchAll(/<input\b[^>]*>/gi)) {
    const attributes = tagAttributes(m[0]);
    if (attributes.get('name') === 'SAMLResponse') {
      const value = (attributes.get('value') ?? '').replace(/\s+/g, '');
      return /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** Attribute name → values of a SAML assertion (namespace prefixes ignored). */
export function samlAttributes(samlResponseBase64: string): Map<string, string[]> {
  const xml = Buffer.from(samlResponseBase64, 'base64').toString('utf8');
  const out = new Map<string, string[]>();
  const attributeRe = /<(?:[\w.-]+:)?Attribute\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?Attribute\s*>)/g;
  const valueRe =
    /<(?:[\w.-]+:)?AttributeValue\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?AttributeValue\s*>)/g;
  for (const m of xml.matchAll(attributeRe)) {
    const name = tagAttributes(m[1] ?? '').get('name');
    if (!name) continue;
    const values = [...(m[2] ?? '').matchAll(valueRe)].map((v) => decodeEntities((v[1] ?? '').trim()));
    out.set(name, [...(out.get(name) ?? []), ...values]);
  }
  return out;
}

const SAML_ROLE_ATTRIBUTE = 'https://aws.amazon.com/SAML/Attributes/Role';
const SAML_DB_USER_ATTRIBUTE = 'https://redshift.amazon.com/SAML/Attributes/DbUser';
const SAML_DB_GROUPS_ATTRIBUTE = 'https://redshift.amazon.com/SAML/Attributes/DbGroups';
const SAML_AUTO_CREATE_ATTRIBUTE = 'https://redshift.amazon.com/SAML/Attributes/AutoCreate';

const ROLE_ARN = /^arn:aws[\w-]*:iam::\d{12}:role\/\S+$/;
const PROVIDER_ARN = /^arn:aws[\w-]*:iam::\d{12}:saml-provider\/\S+$/;

/**
 * The SAML provider ARN the assertion pairs with `roleArn` (each Role attribute value is
 * `roleArn,providerArn` in either order), or undefined when the assertion does not offer it.
 */
export function samlProviderFor(attributes: Map<string, string[]>, roleArn: string): string | undefined {
  for (const value of attributes.get(SAML_ROLE_ATTRIBUTE) ?? []) {
    const parts = value.split(',').map((p) => p.trim());
    if (parts.length !== 2) continue;
    const role = parts.find((p) => ROLE_ARN.test(p));
    const provider = parts.find((p) => PROVIDER_ARN.test(p));
    if (role === roleArn && provider) return provider;
  }
  return undefined;
}

/** What GetClusterCredentials needs from the assertion: the database user, its groups, auto-create. */
export function redshiftIdentity(
  attributes: Map<string, string[]>,
  fallbackUser: string,
): { dbUser: string; dbGroups: string[]; autoCreate: boolean } {
  const first = (name: string) => attributes.get(name)?.find((v) => v.length > 0);
  const dbGroups = (attributes.get(SAML_DB_GROUPS_ATTRIBUTE) ?? [])
    .flatMap((v) => v.split(','))
    .map((g) => g.trim())
    .filter((g) => g.length > 0);
  return {
    dbUser: first(SAML_DB_USER_ATTRIBUTE) ?? fallbackUser,
    dbGroups,
    autoCreate: (first(SAML_AUTO_CREATE_ATTRIBUTE) ?? '').toLowerCase() === 'true',
  };
}
