"""Tile labels on photos: the in-memory dataset (`model`), the class list (`classes`), the formats Label Studio,
YOLO and COCO (`label_studio`, `yolo`, `coco`), the careful labeller's checks (`checks`), writing a folder or file
without leaving half of it behind (`atomic`), and saving a confirmed photo as training data (`save`)."""
