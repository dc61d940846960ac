"""What a capture means: explanations, module audits, queries, grouping, layout, gradient flow."""
