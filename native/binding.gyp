{
  "targets": [
    {
      "target_name": "md5_lanes",
      "sources": ["md5-lanes.c"],
      "cflags": ["-std=c11", "-Wall", "-Wextra"]
    }
  ]
}
