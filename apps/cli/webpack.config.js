const { chmodSync } = require('node:fs');
const { join } = require('node:path');

// The CLI bundle is the package's `bin`: it starts with a shebang and is executable, so that it runs as a
// command (npm links the bin at install time, before a fresh checkout has built it, and then cannot mark it).
module.exports = (options, webpack) => ({
  ...options,
  plugins: [
    ...options.plugins,
    new webpack.BannerPlugin({ banner: '#!/usr/bin/env node', raw: true, entryOnly: true }),
    {
      apply: (compiler) =>
        compiler.hooks.afterEmit.tap('ExecutableBin', (compilation) => {
          for (const chunk of compilation.chunks)
            for (const file of chunk.files) chmodSync(join(compiler.outputPath, file), 0o755);
        }),
    },
  ],
});
