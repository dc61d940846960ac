"""Running the user's code under the recorder: the mode, hook rewrite, patches, streams, fresh state."""
