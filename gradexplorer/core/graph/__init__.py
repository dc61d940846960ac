"""The capture graph: the walk of autograd's graph into networkx, and what a node's attributes mean."""
