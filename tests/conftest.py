import os

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
