/**
 * Route matching by API Gateway's rules (literal segments beat `{param}` segments), shared by
 * the local gateway and the `$default` function that answers unmatched requests.
 */
import { type RouteDef, routes } from '../catalog/routes';

interface CompiledRoute {
  route: RouteDef;
  pattern: RegExp;
  params: string[];
  literalSegments: number;
}

function compile(route: RouteDef): CompiledRoute {
  const params: string[] = [];
  const segments = route.path.split('/').filter(Boolean);
  const source = segments
    .map((seg) => {
      const param = /^\{([A-Za-z0-9_]+)\}$/.exec(seg);
      if (param?.[1]) {
        params.push(param[1]);
        return '/([^/]+)';
      }
      return `/${seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return {
    route,
    pattern: new RegExp(`^${source || '/'}/?$`),
    params,
    literalSegments: segments.filter((s) => !s.startsWith('{')).length,
  };
}

let compiled: CompiledRoute[] | undefined;

function table(): CompiledRoute[] {
  compiled ??= (routes as readonly RouteDef[])
    .map(compile)
    .sort((a, b) => b.literalSegments - a.literalSegments);
  return compiled;
}

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const entry of table()) {
    if (entry.route.method !== method) continue;
    const m = entry.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      entry.params.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1] ?? '');
      });
    } catch {
      continue; // malformed percent-encoding: no match
    }
    return { route: entry.route, params };
  }
  return undefined;
}

/** Methods that exist for a path (for 405 answers). */
export function allowedMethods(path: string): string[] {
  return [
    ...new Set(
      table()
        .filter((e) => e.pattern.test(path))
        .map((e) => e.route.method),
    ),
  ];
}
