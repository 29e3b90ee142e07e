-- ./horizon why|cancel NAME: a job is found by its name within its team (GET /api/v1/jobs?name=N), newest first.
CREATE INDEX jobs_team_name ON jobs (team, name, submitted_at);
