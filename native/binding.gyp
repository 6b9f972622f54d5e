{
  "targets": [
    {
      "target_name": "md5_lanes",
      "sources": ["md5-lanes.c"],
      "cflags": ["-std=c11", "-Wall", "-Wextra"]
    },
    {
      "target_name": "page_cache",
      "sources": ["page-cache.c"],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra"]
    }
  ]
}
