// The virtual authenticator (issue 42, item 5): being written.
