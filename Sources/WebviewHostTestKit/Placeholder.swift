// The test kit lands in the next commit.
