// Container readers and writers: see ARCHITECTURE.md.
