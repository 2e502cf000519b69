"""The HTTP machinery under every route: middleware, security, forms, dependencies, budgets and the work pool."""
