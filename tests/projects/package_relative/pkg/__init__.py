"""A package with relative imports: pkg.model uses .layers and .utils.init."""
