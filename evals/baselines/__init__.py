"""Players that need no model: the scripted reference (:mod:`.scripted`, as a LangChain chat
model in :mod:`.langchain_scripted` and a LlamaIndex LLM in :mod:`.llamaindex_scripted`), the
generic :mod:`.heuristic` policy, a person at a terminal (:mod:`.human`), and the shell they
share (:mod:`.offline_model`). They read what a model would read, nothing more; they import
only the suite group below them."""
