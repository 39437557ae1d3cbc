"""The sites of the ``builtin`` eval suite: one origin (``http://builtin.webrefs.test``), each
site under its own path prefix, with server-side behaviour in one module per site."""
