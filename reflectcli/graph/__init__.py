"""The reflection loop as a LangGraph graph: state, nodes, the pure controller, the factory."""
