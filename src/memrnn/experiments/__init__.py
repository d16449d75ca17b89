"""One module per paper: its runs per profile, its tables, its figures, its paper numbers."""
