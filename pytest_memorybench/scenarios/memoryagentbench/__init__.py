"""MemoryAgentBench (Hu, Wang, McAuley; ICLR 2026): four memory competencies, "inject once, query many".

data       the Hugging Face release's rows and their loader
feeding    chunking, the memorising turn and each question's instruction
scoring    its metrics (SubEM, exact match, F1, label accuracy, Recall@5) and its judged ones
generator  samples of our own for each competency
scenario   the four scenarios: accurate retrieval, test-time learning, long-range understanding,
           conflict resolution
"""
