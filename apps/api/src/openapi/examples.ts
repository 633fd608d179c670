/* Real answers of the service, written by scripts/capture-openapi-examples.mjs: do not edit by hand. */
export const EXAMPLES: Record<string, unknown> = {
  "me": {
    "data": {
      "workspace": {
        "id": "ws_6w8VYxVyo0euWrLv",
        "name": "Acme Recruiting"
      },
      "mode": "live",
      "sandbox": {
        "limit": 25,
        "windowDays": 30,
        "remaining": 25
      }
    }
  },
  "tests": {
    "data": [
      {
        "slug": "javascript-coding",
        "name": "JavaScript Coding",
        "type": "programming",
        "format": "code",
        "minutes": 45,
        "timed": true,
        "questionCount": 2,
        "description": "Candidates solve two practical JavaScript tasks in a live editor, graded automatically against hidden test cases."
      },
      {
        "slug": "python-coding",
        "name": "Python Coding",
        "type": "programming",
        "format": "code",
        "minutes": 45,
        "timed": true,
        "questionCount": 2,
        "description": "Candidates write Python functions to solve two realistic problems, graded on correctness against test cases."
      }
    ],
    "meta": {
      "total": 2
    }
  },
  "assessment": {
    "data": {
      "id": "asm_0dgJMGNLZxjNa159",
      "name": "Backend engineer, autumn intake",
      "status": "active",
      "createdAt": "2026-11-23T19:33:18.947Z",
      "deadline": null,
      "tests": [
        {
          "slug": "numerical-reasoning",
          "name": "Numerical Reasoning",
          "type": "library"
        },
        {
          "slug": "big-five-personality",
          "name": "Big Five Personality (OCEAN)",
          "type": "library"
        }
      ],
      "candidateCount": 1,
      "inviteUrl": "https://app.example.com/join/asm_0dgJMGNLZxjNa159/aX6lAxG9AEDjmSP9RMceb24UBz_fpYKw"
    }
  },
  "assessments": {
    "data": [
      {
        "id": "asm_0dgJMGNLZxjNa159",
        "name": "Backend engineer, autumn intake",
        "status": "active",
        "createdAt": "2026-11-23T19:33:18.947Z",
        "deadline": null,
        "tests": [
          {
            "slug": "numerical-reasoning",
            "name": "Numerical Reasoning",
            "type": "library"
          },
          {
            "slug": "big-five-personality",
            "name": "Big Five Personality (OCEAN)",
            "type": "library"
          }
        ],
        "candidateCount": 1,
        "inviteUrl": "https://app.example.com/join/asm_0dgJMGNLZxjNa159/aX6lAxG9AEDjmSP9RMceb24UBz_fpYKw"
      }
    ],
    "meta": {
      "nextCursor": null
    }
  },
  "invitations": {
    "data": [
      {
        "email": "ann.lee@example.com",
        "firstName": "Ann",
        "surname": "Lee",
        "status": "invited",
        "reason": null,
        "candidateId": null,
        "invitationUrl": "https://app.example.com/invitations/asm_0dgJMGNLZxjNa159/6Ek48wD-opnk8s16uH11WRM2omaLRaj5"
      },
      {
        "email": "not-an-address",
        "firstName": "Bo",
        "surname": "",
        "status": "failed",
        "reason": "invalid_email",
        "candidateId": null,
        "invitationUrl": null
      }
    ],
    "meta": {
      "assessmentId": "asm_0dgJMGNLZxjNa159",
      "invited": 1,
      "alreadyInvited": 0,
      "failed": 1
    }
  },
  "candidate": {
    "data": {
      "id": "cand_dxwlWEg6RYxxhXxZ",
      "email": "ann.lee@example.com",
      "firstName": "Ann",
      "surname": "Lee",
      "createdAt": "2026-11-23T19:33:19.013Z",
      "updatedAt": "2026-11-23T19:33:19.131Z",
      "reportUrl": "https://app.example.com/candidates/cand_dxwlWEg6RYxxhXxZ/report",
      "assessments": [
        {
          "id": "asm_0dgJMGNLZxjNa159",
          "name": "Backend engineer, autumn intake",
          "status": "completed",
          "completedAt": "2026-11-23T19:33:19.098Z",
          "unlocked": false,
          "results": [
            {
              "id": "res_SRxtxUCfkBSSXKpq",
              "testSlug": "numerical-reasoning",
              "testName": "Numerical Reasoning",
              "testType": "library",
              "completedAt": "2026-11-23T19:33:19.053Z",
              "unlocked": true,
              "unlockedAt": "2026-11-23T19:33:19.131Z",
              "scorePercentage": 82.5,
              "speedCompleted": 1260,
              "questionsAnswered": 24,
              "questionsCorrect": 20,
              "questionsIncorrect": 4,
              "questionsTotal": 24,
              "result": "pass",
              "scores": null
            },
            {
              "id": "res_fxYtB2f2xxkxBJt0",
              "testSlug": "big-five-personality",
              "testName": "Big Five Personality (OCEAN)",
              "testType": "library",
              "completedAt": "2026-11-23T19:33:19.098Z",
              "unlocked": false,
              "unlockedAt": null,
              "scorePercentage": null,
              "speedCompleted": null,
              "questionsAnswered": null,
              "questionsCorrect": null,
              "questionsIncorrect": null,
              "questionsTotal": null,
              "result": null,
              "scores": null
            }
          ]
        }
      ]
    }
  },
  "candidates": {
    "data": [
      {
        "id": "cand_dxwlWEg6RYxxhXxZ",
        "email": "ann.lee@example.com",
        "firstName": "Ann",
        "surname": "Lee",
        "createdAt": "2026-11-23T19:33:19.013Z",
        "updatedAt": "2026-11-23T19:33:19.131Z",
        "reportUrl": "https://app.example.com/candidates/cand_dxwlWEg6RYxxhXxZ/report",
        "assessments": [
          {
            "id": "asm_0dgJMGNLZxjNa159",
            "name": "Backend engineer, autumn intake",
            "status": "completed",
            "completedAt": "2026-11-23T19:33:19.098Z",
            "unlocked": false,
            "results": [
              {
                "id": "res_SRxtxUCfkBSSXKpq",
                "testSlug": "numerical-reasoning",
                "testName": "Numerical Reasoning",
                "testType": "library",
                "completedAt": "2026-11-23T19:33:19.053Z",
                "unlocked": true,
                "unlockedAt": "2026-11-23T19:33:19.131Z",
                "scorePercentage": 82.5,
                "speedCompleted": 1260,
                "questionsAnswered": 24,
                "questionsCorrect": 20,
                "questionsIncorrect": 4,
                "questionsTotal": 24,
                "result": "pass",
                "scores": null
              },
              {
                "id": "res_fxYtB2f2xxkxBJt0",
                "testSlug": "big-five-personality",
                "testName": "Big Five Personality (OCEAN)",
                "testType": "library",
                "completedAt": "2026-11-23T19:33:19.098Z",
                "unlocked": false,
                "unlockedAt": null,
                "scorePercentage": null,
                "speedCompleted": null,
                "questionsAnswered": null,
                "questionsCorrect": null,
                "questionsIncorrect": null,
                "questionsTotal": null,
                "result": null,
                "scores": null
              }
            ]
          }
        ]
      }
    ],
    "meta": {
      "nextCursor": null
    }
  },
  "results": {
    "data": [
      {
        "id": "res_SRxtxUCfkBSSXKpq",
        "testSlug": "numerical-reasoning",
        "testName": "Numerical Reasoning",
        "testType": "library",
        "completedAt": "2026-11-23T19:33:19.053Z",
        "unlocked": true,
        "unlockedAt": "2026-11-23T19:33:19.131Z",
        "scorePercentage": 82.5,
        "speedCompleted": 1260,
        "questionsAnswered": 24,
        "questionsCorrect": 20,
        "questionsIncorrect": 4,
        "questionsTotal": 24,
        "result": "pass",
        "scores": null,
        "candidate": {
          "id": "cand_dxwlWEg6RYxxhXxZ",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_0dgJMGNLZxjNa159",
          "name": "Backend engineer, autumn intake"
        },
        "reportUrl": "https://app.example.com/candidates/cand_dxwlWEg6RYxxhXxZ/report"
      },
      {
        "id": "res_fxYtB2f2xxkxBJt0",
        "testSlug": "big-five-personality",
        "testName": "Big Five Personality (OCEAN)",
        "testType": "library",
        "completedAt": "2026-11-23T19:33:19.098Z",
        "unlocked": false,
        "unlockedAt": null,
        "scorePercentage": null,
        "speedCompleted": null,
        "questionsAnswered": null,
        "questionsCorrect": null,
        "questionsIncorrect": null,
        "questionsTotal": null,
        "result": null,
        "scores": null,
        "candidate": {
          "id": "cand_dxwlWEg6RYxxhXxZ",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_0dgJMGNLZxjNa159",
          "name": "Backend engineer, autumn intake"
        },
        "reportUrl": "https://app.example.com/candidates/cand_dxwlWEg6RYxxhXxZ/report"
      }
    ],
    "meta": {
      "nextCursor": null
    }
  },
  "completions": {
    "data": [
      {
        "id": "cand_dxwlWEg6RYxxhXxZ:asm_0dgJMGNLZxjNa159",
        "candidate": {
          "id": "cand_dxwlWEg6RYxxhXxZ",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_0dgJMGNLZxjNa159",
          "name": "Backend engineer, autumn intake"
        },
        "completedAt": "2026-11-23T19:33:19.098Z",
        "unlocked": false,
        "results": [
          {
            "id": "res_SRxtxUCfkBSSXKpq",
            "testSlug": "numerical-reasoning",
            "testName": "Numerical Reasoning",
            "testType": "library",
            "completedAt": "2026-11-23T19:33:19.053Z",
            "unlocked": true,
            "unlockedAt": "2026-11-23T19:33:19.131Z",
            "scorePercentage": 82.5,
            "speedCompleted": 1260,
            "questionsAnswered": 24,
            "questionsCorrect": 20,
            "questionsIncorrect": 4,
            "questionsTotal": 24,
            "result": "pass",
            "scores": null
          },
          {
            "id": "res_fxYtB2f2xxkxBJt0",
            "testSlug": "big-five-personality",
            "testName": "Big Five Personality (OCEAN)",
            "testType": "library",
            "completedAt": "2026-11-23T19:33:19.098Z",
            "unlocked": false,
            "unlockedAt": null,
            "scorePercentage": null,
            "speedCompleted": null,
            "questionsAnswered": null,
            "questionsCorrect": null,
            "questionsIncorrect": null,
            "questionsTotal": null,
            "result": null,
            "scores": null
          }
        ],
        "reportUrl": "https://app.example.com/candidates/cand_dxwlWEg6RYxxhXxZ/report"
      }
    ]
  },
  "legacyCandidates": {
    "count": 1,
    "next": null,
    "previous": null,
    "results": [
      {
        "id": "cand_dxwlWEg6RYxxhXxZ",
        "email": "ann.lee@example.com",
        "first_name": "Ann",
        "last_name": "Lee",
        "created_at": "2026-11-23T19:33:19.013Z",
        "updated_at": "2026-11-23T19:33:19.131Z",
        "report_url": "https://app.example.com/candidates/cand_dxwlWEg6RYxxhXxZ/report",
        "assessments": [
          {
            "id": "asm_0dgJMGNLZxjNa159",
            "name": "Backend engineer, autumn intake",
            "status": "completed",
            "completed_at": "2026-11-23T19:33:19.098Z",
            "results": [
              {
                "id": "res_SRxtxUCfkBSSXKpq",
                "test_slug": "numerical-reasoning",
                "test_name": "Numerical Reasoning",
                "completed_at": "2026-11-23T19:33:19.053Z",
                "unlocked": true,
                "score_percentage": 82.5
              },
              {
                "id": "res_fxYtB2f2xxkxBJt0",
                "test_slug": "big-five-personality",
                "test_name": "Big Five Personality (OCEAN)",
                "completed_at": "2026-11-23T19:33:19.098Z",
                "unlocked": false,
                "score_percentage": null
              }
            ]
          }
        ]
      }
    ]
  }
};
