/**
 * A schema built the first time it is asked for, then kept (ADR 0021). Building a function's
 * first zod schema costs several milliseconds (zod compiles its classes on first use), and a
 * function's init used to build every schema its modules declare, including response schemas it
 * never parses (only the OpenAPI renderer reads them). Declared once as
 * `export const fooSchema = lazySchema(() => z.object({…}))`, the schema still drives validation
 * (`fooSchema().safeParse(v)`), its type (`z.infer<ReturnType<typeof fooSchema>>`) and the
 * document; a route contract's response `schema` takes the thunk as it is.
 *
 * No import: any module may use it without bundling zod for it.
 */
export type LazySchema<T> = () => T;

/** `build`, called once on first use; every later call answers the same object. */
export function lazySchema<T extends object>(build: () => T): LazySchema<T> {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
