"""The sizes of what the graph view draws, in scene units (pixels at 100% zoom).

Shared by the boxes (:mod:`.graph_view`), the edges and their labels
(:mod:`.edge_drawing`) and the overlays' placement: a box's height decides
where an edge leaves and arrives, a caption's size where labels go.
"""

__all__ = ["CAPTION_HEIGHT", "CAPTION_PIXELS", "CAPTION_WIDTH", "LABEL_PIXELS", "MIN_TEXT_PIXELS", "NODE_HEIGHT"]

#: A node's box is this tall.
NODE_HEIGHT = 36.0
#: The value caption ("Values on the graph") sits in the gap above a box, where the edge carrying
#: the node's forward value arrives: this tall, at most this wide.
CAPTION_HEIGHT = 13.0
CAPTION_WIDTH = 190.0
#: Text sizes in scene units (pixels at 100% zoom), not points: what a first picture shows then does
#: not depend on the screen's DPI setting, and the readable zoom below follows from them.
LABEL_PIXELS = 11
CAPTION_PIXELS = 11
#: No text of a first picture (or of Fit) is drawn smaller than this many screen pixels.
MIN_TEXT_PIXELS = 10
