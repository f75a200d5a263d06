"""The static files storage of production (DEBUG=0): whitenoise's compressed manifest
storage, with the `import … from "./x.js"` of the JavaScript modules rewritten to the
hashed names too. Without that, a hashed main.js imported "./socket.js" by its plain name,
which the proxy caches for a year (immutable): after a deploy, a returning browser ran the
new main.js with last year's modules."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
