import sys


def progress(iterable, total, label):
    """A tiny tqdm: rewrites its line with a carriage return."""
    for i, item in enumerate(iterable):
        sys.stderr.write(f"\r{label} {i + 1}/{total} [{'#' * (i + 1)}{'.' * (total - i - 1)}]")
        sys.stderr.flush()
        yield item
    sys.stderr.write("\n")
