"""The Streamlit app: an entrypoint over pages that read state, call the core, and render."""
