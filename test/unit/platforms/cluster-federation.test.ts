/**
 * ClusterWarehouse access-key / idp authentication, pure parts: which cluster or workgroup a
 * host names, the SAML form field and the assertion's AWS attributes.
 */
import { describe, expect, it } from 'vitest';
import {
  clusterEndpoint,
  decodeEntities,
  redshiftIdentity,
  samlAttributes,
  samlProviderFor,
  samlResponseFromHtml,
} from '../../../shared/platforms/cluster-warehouse/federation';

describe('clusterEndpoint', () => {
  it('reads a provisioned cluster host', () => {
    expect(clusterEndpoint('examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com')).toEqual({
      kind: 'provisioned',
      clusterIdentifier: 'examplecluster',
      region: 'us-west-2',
    });
    expect(clusterEndpoint('My-Cluster.cx1.cn-north-1.redshift.amazonaws.com.cn.')).toEqual({
      kind: 'provisioned',
      clusterIdentifier: 'my-cluster',
      region: 'cn-north-1',
    });
  });

  it('reads a serverless workgroup host', () => {
    expect(
      clusterEndpoint('analytics-wg.123456789012.eu-central-1.redshift-serverless.amazonaws.com'),
    ).toEqual({
      kind: 'serverless',
      workgroup: 'analytics-wg',
      region: 'eu-central-1',
    });
  });

  it('refuses other hosts unless connectArgs name the cluster and region', () => {
    expect(clusterEndpoint('db.example.com')).toBeUndefined();
    expect(clusterEndpoint('127.0.0.1')).toBeUndefined();
    expect(clusterEndpoint('a.b.us-east-1.redshift.example.com')).toBeUndefined();
    expect(clusterEndpoint('a.b.c.d.us-east-1.redshift.amazonaws.com')).toBeUndefined();
    expect(clusterEndpoint('c.id.not_a_region.redshift.amazonaws.com')).toBeUndefined();
    expect(clusterEndpoint('db.example.com', 'clusterIdentifier=prod&region=us-east-1')).toEqual({
      kind: 'provisioned',
      clusterIdentifier: 'prod',
      region: 'us-east-1',
    });
    expect(clusterEndpoint('127.0.0.1', 'sslmode=disable&workgroup=wg-1&region=ap-southeast-2')).toEqual({
      kind: 'serverless',
      workgroup: 'wg-1',
      region: 'ap-southeast-2',
    });
    // A name without a region, or malformed values, is not enough.
    expect(clusterEndpoint('db.example.com', 'clusterIdentifier=prod')).toBeUndefined();
    expect(clusterEndpoint('db.example.com', 'clusterIdentifier=bad/name&region=us-east-1')).toBeUndefined();
    expect(clusterEndpoint('db.example.com', 'workgroup=x&region=us-east-1')).toBeUndefined();
  });

  it('connectArgs override what the host says', () => {
    expect(
      clusterEndpoint('c1.id.us-west-2.redshift.amazonaws.com', 'clusterIdentifier=c2&region=eu-west-1'),
    ).toEqual({ kind: 'provisioned', clusterIdentifier: 'c2', region: 'eu-west-1' });
    expect(clusterEndpoint('c1.id.us-west-2.redshift.amazonaws.com', 'region=eu-west-1')).toEqual({
      kind: 'provisioned',
      clusterIdentifier: 'c1',
      region: 'eu-west-1',
    });
  });
});

const ROLE = 'arn:aws:iam::123456789012:role/RedshiftSetup';
const PROVIDER = 'arn:aws:iam::123456789012:saml-provider/Okta';
const OTHER_ROLE = 'arn:aws:iam::123456789012:role/ReadOnly';
const OTHER_PROVIDER = 'arn:aws:iam::123456789012:saml-provider/Other';

function assertion(attributes: Record<string, string[]>): string {
  const body = Object.entries(attributes)
    .map(
      ([name, values]) =>
        `<saml2:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">${values
          .map((v) => `<saml2:AttributeValue xsi:type="xs:string">${v}</saml2:AttributeValue>`)
          .join('')}</saml2:Attribute>`,
    )
    .join('\n');
  const xml = `<?xml version="1.0" encoding="UTF-8"?><saml2p:Response xmlns:saml2p="urn:oasis:names:tc:SAML:2.0:protocol"><saml2:Assertion xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion"><saml2:AttributeStatement>${body}</saml2:AttributeStatement></saml2:Assertion></saml2p:Response>`;
  return Buffer.from(xml).toString('base64');
}

describe('SAML response parsing', () => {
  it('decodes character references', () => {
    expect(decodeEntities('a&#x2b;b&#43;c&#x3D;&amp;&lt;&quot;&apos;&unknown;')).toBe('a+b+c=&<"\'&unknown;');
  });

  it('finds the SAMLResponse field of the auto-submitting form, entity-encoded and in any attribute order', () => {
    const value = assertion({ x: ['y'] });
    const encoded = value.replaceAll('+', '&#x2b;').replaceAll('=', '&#x3d;');
    const html = `<html><body><form id="appForm" action="https://signin.aws.amazon.com/saml" method="POST">
      <input name="RelayState" type="hidden" value=""/>
      <input type="hidden" value="${encoded}" name="SAMLResponse"/>
      </form></body></html>`;
    expect(samlResponseFromHtml(html)).toBe(value);
    expect(samlResponseFromHtml(`<INPUT NAME='SAMLResponse' VALUE='${value}'>`)).toBe(value);
  });

  it('returns undefined for a page without the field (a sign-in or error page) or a value that is not base64', () => {
    expect(samlResponseFromHtml('<html><form><input name="username"/></form></html>')).toBeUndefined();
    expect(samlResponseFromHtml('<input name="SAMLResponse" value="not base64!"/>')).toBeUndefined();
    expect(samlResponseFromHtml('')).toBeUndefined();
  });

  it('reads the Role attribute and pairs the configured role with its provider, in either order', () => {
    const attrs = samlAttributes(
      assertion({
        'https://aws.amazon.com/SAML/Attributes/Role': [
          `${OTHER_ROLE},${OTHER_PROVIDER}`,
          `${PROVIDER},${ROLE}`,
        ],
        'https://aws.amazon.com/SAML/Attributes/RoleSessionName': ['jane@example.com'],
      }),
    );
    expect(attrs.get('https://aws.amazon.com/SAML/Attributes/Role')).toHaveLength(2);
    expect(samlProviderFor(attrs, ROLE)).toBe(PROVIDER);
    expect(samlProviderFor(attrs, OTHER_ROLE)).toBe(OTHER_PROVIDER);
    expect(samlProviderFor(attrs, 'arn:aws:iam::123456789012:role/Missing')).toBeUndefined();
  });

  it('ignores malformed Role values and an assertion without roles', () => {
    const attrs = samlAttributes(
      assertion({
        'https://aws.amazon.com/SAML/Attributes/Role': [ROLE, `${ROLE},${ROLE}`, `${ROLE},${PROVIDER},extra`],
      }),
    );
    expect(samlProviderFor(attrs, ROLE)).toBeUndefined();
    expect(samlProviderFor(samlAttributes(assertion({})), ROLE)).toBeUndefined();
    expect(samlProviderFor(samlAttributes(Buffer.from('not xml').toString('base64')), ROLE)).toBeUndefined();
  });

  it('takes the Redshift DbUser, DbGroups and AutoCreate attributes, else the idp username', () => {
    const withAttrs = samlAttributes(
      assertion({
        'https://redshift.amazon.com/SAML/Attributes/DbUser': ['svc&amp;user'],
        'https://redshift.amazon.com/SAML/Attributes/DbGroups': ['analysts, admins', 'ops'],
        'https://redshift.amazon.com/SAML/Attributes/AutoCreate': ['TRUE'],
      }),
    );
    expect(redshiftIdentity(withAttrs, 'jane')).toEqual({
      dbUser: 'svc&user',
      dbGroups: ['analysts', 'admins', 'ops'],
      autoCreate: true,
    });
    expect(redshiftIdentity(samlAttributes(assertion({})), 'jane')).toEqual({
      dbUser: 'jane',
      dbGroups: [],
      autoCreate: false,
    });
  });
});
