/**
 * Each route family says which of the gateway's parts it uses (`RouteFamily<'store' | …>`), and
 * so does each helper that takes parts (`Pick<GatewayParts, …>`): the compiler refuses a part
 * used but not declared, and this refuses one declared but never used, so the declaration stays
 * what a reader can trust. Read from the source, without the type checker: a part counts as used
 * when the function reads `parts.<name>`, destructures it, or hands `parts` to a helper that
 * declares it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const routes = path.dirname(new URL(import.meta.url).pathname);

/** A function that receives parts: what it declares, and where its body is. */
type PartsTaker = {
  file: string;
  name: string;
  /** The parameter holding the parts; undefined when it takes none (it declares none then). */
  parameter: ts.ParameterDeclaration | undefined;
  declared: ts.TypeNode | undefined;
  body: ts.Node | undefined;
};

function sourceFiles(): ts.SourceFile[] {
  return readdirSync(routes)
    .filter((name) => name.endsWith('.ts') && !name.includes('.test.'))
    .map((name) => {
      const text = readFileSync(path.join(routes, name), 'utf8');
      return ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    });
}

const isPick = (node: ts.TypeNode): node is ts.TypeReferenceNode =>
  ts.isTypeReferenceNode(node) &&
  node.typeName.getText() === 'Pick' &&
  node.typeArguments?.[0]?.getText() === 'GatewayParts';

/** Every function in the folder that takes parts, and every type alias (to resolve names). */
function collect(files: ts.SourceFile[]) {
  const aliases = new Map<string, ts.TypeNode>();
  const findAliases = (node: ts.Node): void => {
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type);
    ts.forEachChild(node, findAliases);
  };
  files.forEach(findAliases);
  // `Pick<GatewayParts, …>`, or an alias of one (`InferenceParts`).
  const isParts = (type: ts.TypeNode): boolean =>
    isPick(type) ||
    (ts.isTypeReferenceNode(type) &&
      aliases.has(type.typeName.getText()) &&
      isParts(aliases.get(type.typeName.getText())!));
  const takers: PartsTaker[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      const fn = ts.isFunctionDeclaration(node)
        ? { name: node.name?.text, fn: node }
        : ts.isVariableDeclaration(node) &&
            node.initializer &&
            (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
          ? { name: node.name.getText(), fn: node.initializer }
          : undefined;
      const parameter = fn?.fn.parameters.find((p) => p.type && isParts(p.type));
      if (fn?.name && parameter)
        takers.push({
          file: file.fileName,
          name: fn.name,
          parameter,
          declared: parameter.type,
          body: fn.fn.body,
        });
      // A family: `const x: RouteFamily<…> = { add(router, parts) {…} }`, or a function
      // returning `RouteFamily<…>` whose object has the `add`.
      const declaration =
        ts.isVariableDeclaration(node) || ts.isFunctionDeclaration(node) ? node : undefined;
      const familyType = declaration?.type;
      if (familyType && ts.isTypeReferenceNode(familyType)) {
        if (familyType.typeName.getText() === 'RouteFamily') {
          const name = declaration.name?.getText() ?? '?';
          const add = findAdd(node);
          if (!familyType.typeArguments?.[0])
            problems.push(`${file.fileName}: ${name} does not say which parts it uses`);
          else if (add)
            takers.push({
              file: file.fileName,
              name: `${name}.add`,
              parameter: add.parameters[1],
              declared: familyType.typeArguments[0],
              body: add.body,
            });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { aliases, takers, problems };
}

function findAdd(node: ts.Node): ts.MethodDeclaration | undefined {
  let found: ts.MethodDeclaration | undefined;
  const visit = (child: ts.Node): void => {
    if (found) return;
    if (ts.isMethodDeclaration(child) && child.name.getText() === 'add') found = child;
    else ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

/** The part names a type names: `'a' | 'b'`, `keyof X`, `Pick<GatewayParts, …>`, an alias. */
function keysOf(type: ts.TypeNode, aliases: Map<string, ts.TypeNode>): Set<string> {
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal))
    return new Set([type.literal.text]);
  if (ts.isLiteralTypeNode(type) && type.literal.kind === ts.SyntaxKind.NeverKeyword)
    return new Set();
  if (type.kind === ts.SyntaxKind.NeverKeyword) return new Set();
  if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type))
    return new Set(type.types.flatMap((member) => [...keysOf(member, aliases)]));
  if (ts.isTypeOperatorNode(type) && type.operator === ts.SyntaxKind.KeyOfKeyword)
    return keysOf(type.type, aliases);
  if (isPick(type)) return keysOf(type.typeArguments![1]!, aliases);
  if (ts.isTypeReferenceNode(type) && aliases.has(type.typeName.getText()))
    return keysOf(aliases.get(type.typeName.getText())!, aliases);
  throw new Error(`cannot read the parts of type ${type.getText()}`);
}

/** What each taker declares but never uses, and each use of parts that cannot be followed. */
function unusedParts(files: ts.SourceFile[]): string[] {
  const { aliases, takers, problems } = collect(files);
  const declared = new Map(takers.map((taker) => [taker, keysOf(taker.declared!, aliases)]));
  const byName = (name: string, file: string) =>
    takers.find((taker) => taker.name === name && taker.file === file) ??
    takers.find((taker) => taker.name === name);
  for (const taker of takers) {
    const where = `${taker.file}: ${taker.name}`;
    const used = new Set<string>();
    const name = taker.parameter?.name;
    if (name && !ts.isIdentifier(name)) {
      // Destructured in the signature: no-unused-vars holds each name to a use.
      for (const element of (name as ts.ObjectBindingPattern).elements)
        used.add((element.propertyName ?? element.name).getText());
    } else if (name && taker.body) {
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && node.text === name.text && node !== name) {
          const parent = node.parent;
          if (ts.isPropertyAccessExpression(parent) && parent.expression === node)
            used.add(parent.name.text);
          else if (ts.isPropertyAccessExpression(parent) && parent.name === node) {
            // `something.parts`: another object's property of that name.
          } else if (
            ts.isVariableDeclaration(parent) &&
            parent.initializer === node &&
            ts.isObjectBindingPattern(parent.name)
          )
            for (const element of parent.name.elements)
              used.add((element.propertyName ?? element.name).getText());
          else if (
            (ts.isCallExpression(parent) || ts.isNewExpression(parent)) &&
            parent.arguments?.includes(node)
          ) {
            const callee = parent.expression.getText().split('.').pop()!;
            const helper = byName(callee, taker.file);
            if (helper) for (const key of declared.get(helper)!) used.add(key);
            else problems.push(`${where} hands ${name.text} to ${callee}, which declares none`);
          } else problems.push(`${where} uses ${name.text} whole: ${parent.getText()}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(taker.body);
    }
    for (const key of declared.get(taker)!)
      if (!used.has(key)) problems.push(`${where} declares '${key}' but never uses it`);
  }
  return problems;
}

describe('the parts each route family declares', () => {
  const files = sourceFiles();

  it('are each used, by the family or by a helper it hands them to', () => {
    expect(unusedParts(files)).toEqual([]);
    // Every family of all-routes.ts was read (one file holds two).
    const families = collect(files).takers.filter((taker) => taker.name.endsWith('.add'));
    expect(families).toHaveLength(20);
  });

  it('are checked: a part declared and not used is found', () => {
    const family = ts.createSourceFile(
      'example.ts',
      `export const exampleRoutes: RouteFamily<'store' | 'clock'> = {
         routes: [],
         add(router, parts) { addRoute(router, doc, () => parts.store.ping()); },
       };`,
      ts.ScriptTarget.Latest,
      true,
    );
    expect(unusedParts([family])).toEqual([
      "example.ts: exampleRoutes.add declares 'clock' but never uses it",
    ]);
  });
});
