'use strict'
// Prints the package.json of the published main npm package, from the development one:
//
//   node scripts/dist/npm-main-manifest.js bindings/node/package.json linux-x64-gnu ...
//
// What changes: the platform packages become optionalDependencies at the same version
// (npm installs the one whose os/cpu/libc match; the loader, native.js, requires it), the
// package is publishable, it ships no .node of its own, and the development-only fields
// (devDependencies, scripts) are dropped: npm 11 runs no install scripts of dependencies,
// and nothing needs building at install time.
const fs = require('fs')

const [manifestPath, ...platforms] = process.argv.slice(2)
if (!manifestPath || platforms.length === 0) {
  console.error('usage: npm-main-manifest.js <package.json> <platform>...')
  process.exit(2)
}
const pkg = JSON.parse(fs.readFileSync(manifestPath, 'utf8'))
const out = { ...pkg }
delete out.private
delete out.devDependencies
delete out.scripts
out.files = pkg.files.filter((f) => !f.endsWith('.node')).concat(['LICENSE-MIT', 'LICENSE-APACHE'])
out.optionalDependencies = {}
for (const p of platforms) {
  out.optionalDependencies[`${pkg.name}-${p}`] = pkg.version
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n')
