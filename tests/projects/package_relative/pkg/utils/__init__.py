from .init import init_weights

__all__ = ["init_weights"]
