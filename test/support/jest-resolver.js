// Some @octokit packages export only an `import` condition; retry with it when the default resolution fails.
module.exports = (request, options) => {
  try {
    return options.defaultResolver(request, options);
  } catch {
    return options.defaultResolver(request, { ...options, conditions: ['import', 'node', 'default'] });
  }
};
