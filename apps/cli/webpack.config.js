// The CLI bundle is the package's `bin`: it starts with a shebang so that it runs as a command.
module.exports = (options, webpack) => ({
  ...options,
  plugins: [
    ...options.plugins,
    new webpack.BannerPlugin({ banner: '#!/usr/bin/env node', raw: true, entryOnly: true }),
  ],
});
