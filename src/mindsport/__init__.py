"""mindsport: ratings, fair tournaments, simulation and hidden-information inference."""
