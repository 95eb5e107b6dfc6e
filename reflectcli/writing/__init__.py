"""What is said to models and how their text is handled: prompts, schemas, the rubric, text
operations, outline editing. Imports only `errors` and itself."""
