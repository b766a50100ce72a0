"""The sans-IO protocol core: messages in, messages out; no sockets."""
