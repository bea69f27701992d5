// The TypeScript language service as a reference oracle for eval/symbols/references.py.
//
// Reads one JSON object on standard input:
//   {"root": FOLDER, "files": [RELATIVE PATHS], "queries": [{"op": "references" | "definition",
//    "file": PATH, "line": N, "column": N}]}   (0-based lines; columns in UTF-16 code units)
// and writes one JSON array, an answer per query, each a list of
//   {"file": PATH, "line": N, "column": N, "definition": BOOL}
// ("references": findReferences at the position, every reference of every symbol it finds;
//  "definition": getDefinitionAtPosition). References outside the root (the standard library's
// declarations) are left out; a definition outside it is {"file": "", "line": -1}. The root's tsconfig.json, if any, gives the compiler options;
// the program is the files given, so nothing is installed or fetched.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const root = path.resolve(input.root);
const files = input.files.map((file) => path.join(root, file));

function compilerOptions() {
  const defaults = {
    allowJs: true,
    jsx: ts.JsxEmit.Preserve,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
  };
  const configPath = path.join(root, "tsconfig.json");
  if (!fs.existsSync(configPath)) return defaults;
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) return defaults;
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  return { ...defaults, ...parsed.options, allowJs: true, noEmit: true };
}

const options = compilerOptions();
const texts = new Map();
function text(file) {
  if (!texts.has(file)) texts.set(file, fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
  return texts.get(file);
}
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (file) => {
    const content = text(file);
    return content === undefined ? undefined : ts.ScriptSnapshot.fromString(content);
  },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();

function located(fileName, start, definition) {
  const relative = path.relative(root, fileName);
  if (relative.startsWith("..") || path.isAbsolute(relative) || relative.includes("node_modules")) {
    // Outside the root: dropped from references, kept as {"file": ""} for a definition.
    return definition ? { file: "", line: -1, column: -1, definition } : null;
  }
  const source = program.getSourceFile(fileName);
  if (!source) return null;
  const at = source.getLineAndCharacterOfPosition(start);
  return { file: relative.split(path.sep).join("/"), line: at.line, column: at.character, definition };
}

const answers = input.queries.map((query) => {
  const fileName = path.join(root, query.file);
  const source = program.getSourceFile(fileName);
  if (!source) return [];
  let position;
  try {
    position = source.getPositionOfLineAndCharacter(query.line, query.column);
  } catch {
    return [];
  }
  const found = [];
  if (query.op === "definition") {
    for (const each of service.getDefinitionAtPosition(fileName, position) || []) {
      found.push(located(each.fileName, each.textSpan.start, true));
    }
  } else {
    for (const symbol of service.findReferences(fileName, position) || []) {
      for (const each of symbol.references) {
        found.push(located(each.fileName, each.textSpan.start, Boolean(each.isDefinition)));
      }
    }
  }
  return found.filter((each) => each !== null);
});
process.stdout.write(JSON.stringify(answers));
